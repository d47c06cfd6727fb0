from openhands.events.event import Event, EventSource, RecallType

__all__ = ["Event", "EventSource", "RecallType"]
