"""Session: the web side of one running conversation.

It forwards the conversation's events to its Socket.IO room (through a FIFO queue drained
on the server's event loop), turns runtime/LLM status callbacks into status messages,
dispatches actions sent by the browser, and owns the AgentSession.
"""

from __future__ import annotations

import asyncio
import logging
import time
from enum import Enum
from typing import Literal

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import MicroagentError
from openhands.core.schema import AgentState
from openhands.events.action import MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.serialization import event_to_dict
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.server.models.socket import ErrorPayload, Payload, StatusUpdate, TitleUpdate
from openhands.server.monitoring import MonitoringListener, notify
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.delivery import RoomDelivery
from openhands.server.session.event_rules import live_payload
from openhands.server.session.user_actions import parse_user_action
from openhands.storage.data_models.conversation_status import ConversationStatus
from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

FIRST_EMIT_WAIT_SECONDS = 2.0
IMAGES_DISABLED = "Support for images is disabled for this model, try without an image."
IMAGES_UNSUPPORTED = (
    "Model does not support image upload, change to a different model or try without an image."
)


class Session:
    def __init__(
        self,
        sid: str,
        config: OpenHandsConfig,
        file_store: FileStore,
        delivery: RoomDelivery,
        user_id: str | None = None,
        agent_session_cls: type[AgentSession] = AgentSession,
        monitoring_listener: MonitoringListener | None = None,
    ) -> None:
        self.sid = sid
        self.monitoring_listener = monitoring_listener or MonitoringListener()
        self.user_id = user_id
        self.config = config
        self.delivery = delivery
        self.loop = asyncio.get_running_loop()
        self.last_active_ts = time.time()
        self.runtime_status: str | None = None
        self.is_alive = True
        self._queue: asyncio.Queue[Payload] = asyncio.Queue()
        self.agent_session = agent_session_cls(
            sid, file_store, status_callback=self.queue_status_message, user_id=user_id
        )
        self.agent_session.event_stream.subscribe(EventStreamSubscriber.SERVER, self._on_event, sid)
        self._sender = self.loop.create_task(self._send_loop(), name=f"session-send-{sid}")

    # --- status of the loop --------------------------------------------------------------

    @property
    def event_stream(self) -> EventStream:
        return self.agent_session.event_stream

    @property
    def status(self) -> ConversationStatus:
        if self.agent_session.runtime_connected:
            return ConversationStatus.RUNNING
        return ConversationStatus.STARTING

    def agent_state(self) -> AgentState | None:
        return self.agent_session.get_state()

    # --- start ---------------------------------------------------------------------------

    async def initialize_agent(
        self,
        init_data: ConversationInitData,
        initial_message: MessageAction | None = None,
        replay_json: str | None = None,
    ) -> None:
        started = time.monotonic()
        success = False
        try:
            await self.agent_session.start(self.config, init_data, initial_message, replay_json)
            success = not self.agent_session.start_failed
        except MicroagentError as error:
            await self.send_error(f"Failed to create agent session: {error}")
        except Exception as error:
            if self.agent_session.is_closed:
                # Closed (stopped or deleted) while starting: the start's failure is expected.
                logger.info("The start of %s ended by its close: %s", self.sid, error)
            else:
                logger.exception("Failed to start the agent session of %s", self.sid)
                await self.send_error(f"Failed to create agent session: {type(error).__name__}")
        notify(self.monitoring_listener.on_agent_session_start, success, time.monotonic() - started)

    # --- events to the browser -----------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        """Runs on the stream's worker thread, one event at a time in id order."""
        notify(self.monitoring_listener.on_session_event, event)
        payload = live_payload(event)
        if payload is not None:
            self._enqueue(payload)

    def _enqueue(self, payload: Payload) -> None:
        try:
            self.loop.call_soon_threadsafe(self._queue.put_nowait, payload)
        except RuntimeError:  # the server's loop is gone (shutdown)
            pass

    async def _send_loop(self) -> None:
        first = True
        while True:
            payload = await self._queue.get()
            if first:
                await self._wait_for_listener()
                first = False
            try:
                await self.delivery.send(payload)
                self.last_active_ts = time.time()
            except Exception:
                logger.exception("Could not send an event of %s", self.sid)

    async def _wait_for_listener(self) -> None:
        deadline = time.monotonic() + FIRST_EMIT_WAIT_SECONDS
        while time.monotonic() < deadline and not self.delivery.has_members():
            await asyncio.sleep(0.05)

    def queue_status_message(self, level: str, status_id: str, message: str) -> None:
        """Status callback of the runtime, controller and memory; safe from any thread."""
        if isinstance(status_id, Enum):  # a RuntimeStatus: its id is the value
            status_id = str(status_id.value)
        if status_id.startswith("STATUS$") or status_id.startswith("CHAT_INTERFACE$"):
            self.runtime_status = status_id
        kind: Literal["info", "error"] = "error" if level == "error" else "info"
        payload = StatusUpdate(type=kind, id=status_id, message=message or "").model_dump()
        self._enqueue(payload)
        if kind == "error":
            asyncio.run_coroutine_threadsafe(self._set_error_state(message), self.loop)

    async def _set_error_state(self, message: str) -> None:
        controller = self.agent_session.controller
        if controller is None or self.agent_session.is_closed:
            return
        try:
            await controller.set_agent_state_to(AgentState.ERROR)
        except Exception:
            logger.exception("Could not move %s to the error state", self.sid)

    async def send_error(self, message: str) -> None:
        self._queue.put_nowait(ErrorPayload(message=message).model_dump(exclude_none=True))

    def send_title(self, title: str) -> None:
        self._enqueue(TitleUpdate(message=self.sid, conversation_title=title).model_dump())

    def send_status(self, kind: str, status_id: str, message: str) -> None:
        self._enqueue(StatusUpdate(type=kind, id=status_id, message=message).model_dump())  # type: ignore[arg-type]

    # --- actions from the browser --------------------------------------------------------

    async def dispatch(self, data: Payload) -> None:
        """Append one browser action to the stream as a user event."""
        event = parse_user_action(data)
        if isinstance(event, MessageAction) and event.image_urls:
            problem = self._image_problem()
            if problem is not None:
                await self.send_error(problem)
                return
        event.id = Event.INVALID_ID  # ids are the stream's to assign
        await asyncio.to_thread(self.event_stream.add_event, event, EventSource.USER)
        self.last_active_ts = time.time()

    def _image_problem(self) -> str | None:
        controller = self.agent_session.controller
        if controller is None:
            return None
        llm = controller.agent.llm
        if llm.config.disable_vision:
            return IMAGES_DISABLED
        if not llm.vision_is_active():
            return IMAGES_UNSUPPORTED
        return None

    # --- close ---------------------------------------------------------------------------

    async def close(self) -> None:
        if not self.is_alive:
            return
        self.is_alive = False
        payload = event_to_dict(AgentStateChangedObservation("", AgentState.STOPPED.value))
        try:
            await self.delivery.send(payload)
        except Exception:
            logger.debug("Could not announce the stop of %s", self.sid)
        await self.agent_session.close()
        self._sender.cancel()
