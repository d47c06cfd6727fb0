"""VisualBrowsingAgent: BrowsingAgent that also shows the LLM a screenshot of the page."""

from __future__ import annotations

from openhands.agenthub.browsing_agent.browsing_agent import BrowsingAgent
from openhands.core.message import Content, ImageContent, TextContent
from openhands.events.observation import BrowserOutputObservation, Observation


class VisualBrowsingAgent(BrowsingAgent):
    VERSION = "1.0"

    def _user_content(self, text: str, last_obs: Observation | None) -> list[Content]:
        content: list[Content] = [TextContent(text=text)]
        if isinstance(last_obs, BrowserOutputObservation) and self.llm.vision_is_active():
            image = last_obs.set_of_marks or last_obs.screenshot
            if image and image.strip():
                content.append(
                    TextContent(text="A screenshot of the page, with element ids marked:")
                )
                content.append(ImageContent(image_urls=[image]))
        return content
