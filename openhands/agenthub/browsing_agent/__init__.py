"""BrowsingAgent and VisualBrowsingAgent: text-prompted web browsing (no function calling).

``browsing_agent`` (the step), ``prompt`` (system/user prompts), ``response_parser``
(reply → BrowseInteractiveAction), ``axtree`` (accessibility tree → text),
``visual_browsing_agent`` (adds screenshots).
"""

from openhands.agenthub.browsing_agent.browsing_agent import BrowsingAgent
from openhands.agenthub.browsing_agent.visual_browsing_agent import VisualBrowsingAgent

__all__ = ["BrowsingAgent", "VisualBrowsingAgent"]
