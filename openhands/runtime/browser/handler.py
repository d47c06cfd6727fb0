"""Browse actions in, observations out (runtime.md §8): the action server's browser handler."""

from __future__ import annotations

import shutil
from pathlib import Path

from openhands.core.logger import openhands_logger as logger
from openhands.core.schema import ActionType
from openhands.events.action import BrowseInteractiveAction, BrowseURLAction
from openhands.events.observation import (
    BrowserOutputObservation,
    ErrorObservation,
    FileDownloadObservation,
    Observation,
)
from openhands.runtime.browser.content import browse_content, interactive_content
from openhands.runtime.browser.env import BrowserEnv, BrowserUnavailableError, StepResult

BROWSER_UNAVAILABLE = "Browser functionality is not supported or disabled."

# Leading bytes of common download types, for the saved copy's extension.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF", ".pdf"),
    (b"\x89PNG", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"GIF8", ".gif"),
    (b"PK\x03\x04", ".zip"),
    (b"\x1f\x8b", ".gz"),
)


class BrowserHandler:
    """Owns the BrowserEnv of one action server and the count of files it downloaded."""

    def __init__(self, working_dir: str, chromium_path: str | None = None) -> None:
        self.working_dir = working_dir
        self.env = BrowserEnv(working_dir, chromium_path=chromium_path)
        self._download_count = 0

    async def close(self) -> None:
        await self.env.close()

    async def handle(self, action: BrowseURLAction | BrowseInteractiveAction) -> Observation:
        if isinstance(action, BrowseURLAction):
            # The URL goes through as given: file:// and friends are not made relative to the
            # server's cwd (quirk Q10 fixed).
            code, trigger = f"goto({action.url!r})", ActionType.BROWSE.value
        else:
            code, trigger = action.browser_actions, ActionType.BROWSE_INTERACTIVE.value
        try:
            result = await self.env.step(code)
        except BrowserUnavailableError:
            return ErrorObservation(BROWSER_UNAVAILABLE)
        except Exception as exc:
            logger.warning("Browser step failed: %s", exc)
            return _failed(action, code, trigger, str(exc) or type(exc).__name__)
        if isinstance(action, BrowseInteractiveAction) and result.downloads:
            return self._downloaded(action, result.downloads[-1])
        return _observation(action, code, trigger, result)

    def _downloaded(self, action: BrowseInteractiveAction, path: str) -> Observation:
        self._download_count += 1
        target = Path(self.working_dir) / f"file_{self._download_count}{_extension(path)}"
        shutil.copyfile(path, target)
        return FileDownloadObservation(
            content=(
                f"Execution of the previous action {action.browser_actions} resulted in a "
                f"file download. The downloaded file is saved at location: {target}"
            ),
            file_path=str(target),
        )


def _observation(
    action: BrowseURLAction | BrowseInteractiveAction,
    code: str,
    trigger: str,
    result: StepResult,
) -> BrowserOutputObservation:
    if isinstance(action, BrowseURLAction):
        content = browse_content(result.url, result.last_action_error, result.page_text)
    else:
        content = interactive_content(
            result.url,
            result.focused_element_bid,
            result.screenshot_path,
            result.last_action_error,
            result.axtree_text,
        )
    keep = action.return_axtree
    return BrowserOutputObservation(
        content=content,
        url=result.url,
        trigger_by_action=trigger,
        screenshot=result.screenshot,
        screenshot_path=result.screenshot_path,
        set_of_marks=result.set_of_marks,
        error=result.last_action_error != "",
        open_pages_urls=result.open_pages_urls,
        active_page_index=result.active_page_index,
        dom_object=result.dom_object if keep else {},
        axtree_object=result.axtree_object if keep else {},
        extra_element_properties=result.extra_element_properties if keep else {},
        last_browser_action=code,
        last_browser_action_error=result.last_action_error,
        focused_element_bid=result.focused_element_bid,
    )


def _failed(
    action: BrowseURLAction | BrowseInteractiveAction, code: str, trigger: str, error: str
) -> BrowserOutputObservation:
    """The step itself broke (timeout, crash): an error observation without a page."""
    if isinstance(action, BrowseURLAction):
        url = action.url
        content = browse_content(url, error, "")
    else:
        url = ""
        content = interactive_content(url, "", None, error, "")
    return BrowserOutputObservation(
        content=content,
        url=url,
        trigger_by_action=trigger,
        error=True,
        last_browser_action=code,
        last_browser_action_error=error,
    )


def _extension(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        head = b""
    for magic, extension in _MAGIC:
        if head.startswith(magic):
            return extension
    return Path(path).suffix
