"""Browse actions in, observations out (runtime.md §8): the action server's browser handler."""

from __future__ import annotations

import json
import os
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
from openhands.runtime.browser.env import (
    DOWNLOAD_DIR,
    BrowserEnv,
    BrowserUnavailableError,
    StepResult,
)

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
        _ensure_downloads_dir(Path(working_dir) / DOWNLOAD_DIR)

    async def close(self) -> None:
        await self.env.close()

    async def handle(self, action: BrowseURLAction | BrowseInteractiveAction) -> Observation:
        if isinstance(action, BrowseURLAction):
            # The URL goes through as given: file:// and friends are not made relative to the
            # server's cwd (quirk Q10 fixed).
            code, trigger = goto_code(action.url), ActionType.BROWSE.value
        else:
            code, trigger = action.browser_actions, ActionType.BROWSE_INTERACTIVE.value
        try:
            result = await self.env.step(code)
        except BrowserUnavailableError:
            return ErrorObservation(BROWSER_UNAVAILABLE)
        except Exception as exc:
            logger.warning("Browser step failed: %s", exc)
            return _failed(action, code, trigger, str(exc) or type(exc).__name__)
        if result.downloads:
            # A download link, an attachment or a PDF opened by either kind of action.
            return self._downloaded(code, result.downloads[-1])
        return _observation(action, code, trigger, result)

    def _downloaded(self, code: str, path: str) -> Observation:
        self._download_count += 1
        target = Path(self.working_dir) / f"file_{self._download_count}{_extension(path)}"
        shutil.copyfile(path, target)
        return FileDownloadObservation(
            content=(
                f"Execution of the previous action {code} resulted in a "
                f"file download. The downloaded file is saved at location: {target}"
            ),
            file_path=str(target),
        )


def goto_code(url: str) -> str:
    """The action code a ``browse`` runs: ``goto("<url>")`` with a double-quoted literal, as
    ``last_browser_action`` shows it. A quote or backslash in the URL is escaped so the code
    still parses (JSON string escapes are valid Python ones)."""
    return f"goto({json.dumps(url, ensure_ascii=False)})"


def _ensure_downloads_dir(folder: Path) -> None:
    """``<workspace>/.downloads`` exists whenever browsing is enabled (the agent may look there
    before anything was downloaded). Created by a root server before the workspace is set up,
    it gets the workspace's owner once the workspace exists."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            owner = folder.parent.stat()
            if (owner.st_uid, owner.st_gid) != (0, 0):
                os.chown(folder, owner.st_uid, owner.st_gid)
    except OSError as exc:
        logger.warning("Could not create the browser downloads folder %s: %s", folder, exc)


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
