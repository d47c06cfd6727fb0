"""How each observation is shown to the LLM: one rule per observation type.

Every rule returns the content items of a user message (or None for "nothing to say").
ConversationMemory decides whether that content goes out as a user message or as the
``tool`` answer to a tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from openhands.core.message import Content, ImageContent, TextContent
from openhands.core.schema import ActionType
from openhands.events.observation import (
    AgentCondensationObservation,
    AgentDelegateObservation,
    AgentThinkObservation,
    BrowserOutputObservation,
    CmdOutputObservation,
    ErrorObservation,
    FileDownloadObservation,
    FileEditObservation,
    FileReadObservation,
    IPythonRunCellObservation,
    MCPObservation,
    Observation,
    TaskTrackingObservation,
    UserRejectObservation,
)
from openhands.memory.truncation import truncate_content

USER_COMMAND_PREFIX = "\nObserved result of command executed by user:\n"
ERROR_SUFFIX = "\n[Error occurred in processing last action]"
REJECT_PREFIX = "OBSERVATION:\n"
REJECT_SUFFIX = "\n[Last action has been rejected by the user]"
INLINE_IMAGE_MARKER = "![image](data:image/png;base64,"
INLINE_IMAGE_PLACEHOLDER = "![image](data:image/png;base64, ...) already displayed to user"
SCREENSHOT_NOTE = (
    "Image: a screenshot of the visible part of the page follows. The accessibility tree "
    "above covers the whole page.\n"
)


@dataclass(frozen=True)
class RenderOptions:
    max_message_chars: int | None
    vision_is_active: bool
    enable_som_visual_browsing: bool


Rule = Callable[[Observation, RenderOptions], list[Content]]


def is_valid_image_url(url: str | None) -> bool:
    return bool(url and url.strip())


def _text(text: str) -> list[Content]:
    return [TextContent(text=text)]


def _cmd_output(obs: Observation, opts: RenderOptions) -> list[Content]:
    assert isinstance(obs, CmdOutputObservation)
    text = obs.to_agent_observation()
    if obs.tool_call_metadata is None:
        text = USER_COMMAND_PREFIX + text
    return _text(truncate_content(text, opts.max_message_chars))


def _ipython(obs: Observation, opts: RenderOptions) -> list[Content]:
    assert isinstance(obs, IPythonRunCellObservation)
    lines = [
        INLINE_IMAGE_PLACEHOLDER if INLINE_IMAGE_MARKER in line else line
        for line in obs.content.split("\n")
    ]
    text = truncate_content("\n".join(lines), opts.max_message_chars)
    if not obs.image_urls:
        return _text(text)
    valid = [url for url in obs.image_urls if is_valid_image_url(url)]
    dropped = len(obs.image_urls) - len(valid)
    if opts.vision_is_active and dropped:
        if valid:
            text += (
                f"\n\nNote: {dropped} invalid or empty image(s) were filtered out of this "
                "output; the valid ones follow."
            )
        else:
            text += (
                "\n\nNote: the images of this output are invalid or empty and have been "
                "filtered out, so none is shown. Use another way to inspect the visual "
                "result if you need it."
            )
    content: list[Content] = [TextContent(text=text)]
    if valid:
        content.append(ImageContent(image_urls=valid))
    return content


def _browser(obs: Observation, opts: RenderOptions) -> list[Content]:
    assert isinstance(obs, BrowserOutputObservation)
    text = obs.content
    visual = (
        obs.trigger_by_action == ActionType.BROWSE_INTERACTIVE.value
        and opts.enable_som_visual_browsing
    )
    if not visual:
        return _text(text)
    image = obs.set_of_marks if is_valid_image_url(obs.set_of_marks) else obs.screenshot
    if opts.vision_is_active:
        if text and not text.endswith("\n"):
            text += "\n"
        text += SCREENSHOT_NOTE
        if not is_valid_image_url(image):
            text += (
                "\n\nNote: No visual information (no usable screenshot) is available for "
                "this page; rely on the accessibility tree."
            )
    if is_valid_image_url(image):
        return [TextContent(text=text), ImageContent(image_urls=[image])]
    return _text(text)


def _file_edit(obs: Observation, opts: RenderOptions) -> list[Content]:
    return _text(truncate_content(str(obs), opts.max_message_chars))


def _file_read(obs: Observation, opts: RenderOptions) -> list[Content]:
    return _text(obs.content)


def _delegate(obs: Observation, opts: RenderOptions) -> list[Content]:
    assert isinstance(obs, AgentDelegateObservation)
    text = obs.outputs.get("content", obs.content) if obs.outputs else obs.content
    return _text(truncate_content(str(text), opts.max_message_chars))


def _plain(obs: Observation, opts: RenderOptions) -> list[Content]:
    return _text(truncate_content(obs.content, opts.max_message_chars))


def _error(obs: Observation, opts: RenderOptions) -> list[Content]:
    return _text(truncate_content(obs.content, opts.max_message_chars) + ERROR_SUFFIX)


def _user_reject(obs: Observation, opts: RenderOptions) -> list[Content]:
    return _text(
        REJECT_PREFIX + truncate_content(obs.content, opts.max_message_chars) + REJECT_SUFFIX
    )


# RecallObservation is rendered by ConversationMemory (it needs the prompt templates).
OBSERVATION_RULES: dict[type[Observation], Rule] = {
    CmdOutputObservation: _cmd_output,
    MCPObservation: _plain,
    IPythonRunCellObservation: _ipython,
    FileEditObservation: _file_edit,
    FileReadObservation: _file_read,
    BrowserOutputObservation: _browser,
    AgentDelegateObservation: _delegate,
    AgentThinkObservation: _plain,
    TaskTrackingObservation: _plain,
    AgentCondensationObservation: _plain,
    FileDownloadObservation: _plain,
    ErrorObservation: _error,
    UserRejectObservation: _user_reject,
}


def render_observation(obs: Observation, opts: RenderOptions) -> list[Content]:
    """The message content for ``obs``; ValueError for types the LLM never sees."""
    rule = OBSERVATION_RULES.get(type(obs))
    if rule is None:
        raise ValueError(f"Unknown observation type: {type(obs)}")
    return rule(obs, opts)
