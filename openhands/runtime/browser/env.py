"""BrowserEnv: a headless Chromium driven by Playwright's async API, one step per browse action.

It lives in the action server's event loop and starts on the first step, not with the server,
so sandboxes that never browse pay nothing (no Chromium process, no Playwright driver). A
browser that died (crash, killed, hung step) is torn down and started afresh on the next step.
Playwright is imported only when the browser starts: the server's start-up stays as fast as
before.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.browser.actions import ActionParseError, BrowserCall, parse_actions
from openhands.runtime.browser.axtree import flatten_axtree, render_axtree
from openhands.runtime.browser.markdown import html_to_markdown
from openhands.runtime.browser.page_scripts import (
    BID_ATTRIBUTE,
    HIDE_MARKS_JS,
    SHOW_MARKS_JS,
    SNAPSHOT_JS,
)

if TYPE_CHECKING:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        Download,
        Frame,
        Locator,
        Page,
        Playwright,
    )

CHROMIUM_ENV_VAR = "OH_CHROMIUM_PATH"
# The flags headless Debian Chromium needs here (ENVIRONMENT.md). Playwright adds a fresh
# temporary --user-data-dir itself for every launch (and refuses one in ``args``).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT = {"width": 1280, "height": 720}
STEP_TIMEOUT = 120.0
STEP_TIMEOUT_MESSAGE = "Browser environment took too long to respond."
LAUNCH_TIMEOUT_MS = 60_000
# An element action should fail fast (the agent retries with another bid) while navigation
# may legitimately take a while; both stay well inside the step timeout.
ACTION_TIMEOUT_MS = 10_000
NAVIGATION_TIMEOUT_MS = 60_000
SETTLE_TIMEOUT_MS = 5_000
MAX_NOOP_MS = 30_000
NEW_TAB_GRACE_MS = 250
_MAY_OPEN_TAB = frozenset({"click", "dblclick", "press"})
MAX_SNAPSHOT_NODES = 20_000
SCREENSHOT_DIR = ".browser_screenshots"
DOWNLOAD_DIR = ".downloads"
PDF_CONTENT_TYPE = "application/pdf"


class BrowserUnavailableError(RuntimeError):
    """Chromium is missing or would not start."""


class BrowserStepTimeout(TimeoutError):
    def __init__(self) -> None:
        super().__init__(STEP_TIMEOUT_MESSAGE)


def find_chromium() -> str | None:
    """``$OH_CHROMIUM_PATH``, else Debian's ``/usr/bin/chromium``, else the first on PATH."""
    configured = os.environ.get(CHROMIUM_ENV_VAR)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class StepResult:
    """Everything one step observed; ``handler.py`` turns it into an observation."""

    url: str
    open_pages_urls: list[str]
    active_page_index: int
    page_text: str
    axtree_text: str
    axtree_object: dict[str, Any]
    dom_object: dict[str, Any]
    extra_element_properties: dict[str, Any]
    focused_element_bid: str
    screenshot: str
    screenshot_path: str | None
    set_of_marks: str
    last_action_error: str
    downloads: list[str] = field(default_factory=list)
    messages_to_user: list[str] = field(default_factory=list)


class BrowserEnv:
    def __init__(
        self,
        working_dir: str,
        chromium_path: str | None = None,
        step_timeout: float = STEP_TIMEOUT,
    ) -> None:
        self.working_dir = Path(working_dir)
        self.chromium_path = chromium_path
        self.step_timeout = step_timeout
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._downloads: list[asyncio.Future[str | None]] = []
        self._hooked: list[Page] = []
        self._navigated: set[Page] = set()  # pages whose document changed during this step
        self._crashed = False  # a renderer crash: restart everything rather than limp on

    @property
    def running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start Chromium if it is not running (again, if it died). Raises
        BrowserUnavailableError when it cannot be found or launched."""
        if self.running and self._context is not None and not self._crashed:
            return
        await self._teardown()
        path = self.chromium_path or find_chromium()
        if path is None or not os.access(path, os.X_OK):
            raise BrowserUnavailableError(
                f"No Chromium executable found (set {CHROMIUM_ENV_VAR} or install chromium)"
            )
        try:
            from playwright.async_api import async_playwright

            self._playwright = await async_playwright().start()
            self._browser = await self._playwright.chromium.launch(
                executable_path=path,
                headless=True,
                args=list(CHROMIUM_FLAGS),
                timeout=LAUNCH_TIMEOUT_MS,
            )
            self._context = await self._browser.new_context(
                viewport=VIEWPORT,  # type: ignore[arg-type]
                accept_downloads=True,
            )
            self._context.set_default_timeout(ACTION_TIMEOUT_MS)
            self._context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
            # A page opened by the page itself (target=_blank, window.open) becomes active,
            # like a user following it.
            self._context.on("page", self._adopt_page)
            self._adopt_page(await self._context.new_page())
        except Exception as exc:
            logger.warning("Browser failed to start with %s: %s", path, exc)
            await self._teardown()
            raise BrowserUnavailableError(str(exc)) from exc
        logger.info("Browser started (%s)", path)

    async def close(self) -> None:
        async with self._lock:
            await self._teardown()

    async def _teardown(self) -> None:
        """Drop the browser, whatever state it is in; closing must never hang the caller."""
        browser, playwright = self._browser, self._playwright
        self._browser = self._context = self._page = None
        self._playwright = None
        self._hooked = []
        self._crashed = False
        for closer in (
            browser.close() if browser else None,
            playwright.stop() if playwright else None,
        ):
            if closer is None:
                continue
            try:
                await asyncio.wait_for(closer, 10)
            except Exception as exc:  # already dead, or stuck: the driver's exit kills Chromium
                logger.debug("Browser teardown: %s", exc)

    def _adopt_page(self, page: Page) -> None:
        self._page = page
        # Our own new_page() also raises the context's "page" event: hook each page once.
        if page not in self._hooked:
            self._hooked.append(page)
            page.on("download", self._on_download)
            page.on("crash", self._on_crash)
            page.on("framenavigated", self._on_frame_navigated)

    def _on_frame_navigated(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self._navigated.add(frame.page)

    def _on_crash(self, page: Page) -> None:
        logger.warning("Browser page crashed (%s); the browser will be restarted", page.url)
        self._crashed = True

    def _active_page(self) -> Page:
        if self._page is not None and not self._page.is_closed():
            return self._page
        assert self._context is not None
        open_pages = [p for p in self._context.pages if not p.is_closed()]
        if not open_pages:
            raise RuntimeError("The browser has no open page")
        self._page = open_pages[-1]
        return self._page

    # -- one step -------------------------------------------------------------------------------

    async def step(self, code: str) -> StepResult:
        """Run ``code`` (browser action calls) and observe the page afterwards.

        An action that fails stops the sequence; its error is part of the result. Raises
        BrowserUnavailableError (no browser) or BrowserStepTimeout (after which the browser
        is restarted on the next step)."""
        async with self._lock:
            await self.start()
            if self._context is not None and not [
                p for p in self._context.pages if not p.is_closed()
            ]:
                self._adopt_page(await self._context.new_page())
            try:
                return await asyncio.wait_for(self._step(code), self.step_timeout)
            except TimeoutError as exc:
                logger.warning("Browser step timed out; the browser will be restarted")
                await self._teardown()
                raise BrowserStepTimeout() from exc

    async def _step(self, code: str) -> StepResult:
        self._downloads = []
        self._navigated = set()
        assert self._context is not None
        pages_before = list(self._context.pages)
        messages: list[str] = []
        error = ""
        try:
            calls = parse_actions(code)
        except ActionParseError as exc:
            calls, error = [], f"{type(exc).__name__}: {exc}"
        for call in calls:
            try:
                if call.name == "send_msg_to_user":
                    messages.append(str(call.arguments["text"]))
                else:
                    await self._perform(call)
            except Exception as exc:
                if not self.running:
                    raise  # the browser itself is gone: not an action error
                error = f"{type(exc).__name__}: {_first_line(exc)}"
                break
        await self._adopt_opened_tab(
            pages_before, may_open=any(c.name in _MAY_OPEN_TAB for c in calls)
        )
        page = self._active_page()
        await _settle(page)
        result = await self._observe(page, error)
        result.messages_to_user = messages
        result.downloads = await self._finished_downloads()
        if not result.downloads and page in self._navigated:
            pdf = await self._save_opened_pdf(page)
            if pdf is not None:
                result.downloads = [pdf]
        return result

    async def _adopt_opened_tab(self, pages_before: list[Page], may_open: bool) -> None:
        """A tab the step opened (target=_blank, window.open) becomes the active one.

        Chromium reports a new tab a moment after the click that opened it returned, so after
        actions that can open one we give it a short grace period."""
        assert self._context is not None

        def opened() -> list[Page]:
            assert self._context is not None
            return [p for p in self._context.pages if p not in pages_before and not p.is_closed()]

        if may_open and not opened():
            try:
                await self._context.wait_for_event("page", timeout=NEW_TAB_GRACE_MS)
            except Exception:
                pass  # no new tab: the usual case
        new_pages = opened()
        if new_pages:
            self._adopt_page(new_pages[-1])

    async def _perform(self, call: BrowserCall) -> None:
        page = self._active_page()
        args = call.arguments
        name = call.name
        if name == "goto":
            await page.goto(str(args["url"]), wait_until="domcontentloaded")
        elif name == "go_back":
            await page.go_back(wait_until="domcontentloaded")
        elif name == "go_forward":
            await page.go_forward(wait_until="domcontentloaded")
        elif name == "noop":
            await page.wait_for_timeout(min(float(args["wait_ms"]), MAX_NOOP_MS))
        elif name == "scroll":
            await page.mouse.wheel(float(args["delta_x"]), float(args["delta_y"]))
        elif name == "drag_and_drop":
            source = await _element(page, args["from_bid"])
            await source.drag_to(await _element(page, args["to_bid"]))
        else:
            await self._element_action(page, name, args)

    async def _element_action(self, page: Page, name: str, args: dict[str, Any]) -> None:
        element = await _element(page, args["bid"])
        if name == "click":
            await element.click(button=args["button"], modifiers=args["modifiers"])
        elif name == "dblclick":
            await element.dblclick(button=args["button"], modifiers=args["modifiers"])
        elif name == "hover":
            await element.hover()
        elif name == "focus":
            await element.focus()
        elif name == "fill":
            await element.fill(str(args["value"]))
        elif name == "clear":
            await element.clear()
        elif name == "select_option":
            await element.select_option(args["options"])
        elif name == "press":
            await element.press(str(args["key_comb"]))
        elif name == "upload_file":
            await element.set_input_files(args["file"])
        else:  # parse_actions only lets known names through
            raise ValueError(f"Unsupported browser action {name!r}")

    # -- observation ---------------------------------------------------------------------------

    async def _observe(self, page: Page, error: str) -> StepResult:
        snapshot = await _evaluate_settled(page, SNAPSHOT_JS, MAX_SNAPSHOT_NODES)
        html = await page.content()
        page_text = await asyncio.to_thread(html_to_markdown, html)
        screenshot = await page.screenshot(type="png")
        set_of_marks = await self._set_of_marks(page, snapshot["extra_properties"])
        screenshot_path = await asyncio.to_thread(self._save_screenshot, screenshot)
        assert self._context is not None
        pages = [p for p in self._context.pages if not p.is_closed()]
        tree = snapshot["tree"]
        return StepResult(
            url=page.url,
            open_pages_urls=[p.url for p in pages],
            active_page_index=pages.index(page) if page in pages else -1,
            page_text=page_text,
            axtree_text=render_axtree(tree),
            axtree_object=flatten_axtree(tree),
            dom_object={
                "title": tree.get("name", ""),
                "element_count": snapshot["element_count"],
                "truncated": snapshot["truncated"],
                "bid_attribute": BID_ATTRIBUTE,
            },
            extra_element_properties=snapshot["extra_properties"],
            focused_element_bid=snapshot["focused_bid"],
            screenshot=_data_url(screenshot),
            screenshot_path=screenshot_path,
            set_of_marks=set_of_marks,
            last_action_error=error,
        )

    async def _set_of_marks(self, page: Page, extra: dict[str, Any]) -> str:
        """The screenshot again, with each interactive element boxed and labelled by bid."""
        marks = [
            [bid, *props["bbox"]]
            for bid, props in extra.items()
            if props.get("set_of_marks") and props.get("bbox")
        ]
        try:
            await page.evaluate(SHOW_MARKS_JS, marks)
            return _data_url(await page.screenshot(type="png"))
        except Exception as exc:  # the marks are a convenience; the step still counts
            logger.debug("set_of_marks failed: %s", exc)
            return ""
        finally:
            try:
                await page.evaluate(HIDE_MARKS_JS)
            except Exception:
                pass

    def _save_screenshot(self, png: bytes) -> str | None:
        folder = self.working_dir / SCREENSHOT_DIR
        path = folder / f"screenshot_{datetime.now().strftime('%Y%m%d_%H%M%S_%f')}.png"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
        except OSError as exc:
            logger.warning("Could not save the browser screenshot: %s", exc)
            return None
        return str(path)

    # -- downloads ---------------------------------------------------------------------------

    def _on_download(self, download: Download) -> None:
        self._downloads.append(asyncio.ensure_future(self._save_download(download)))

    async def _save_download(self, download: Download) -> str | None:
        folder = self.working_dir / DOWNLOAD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / (Path(download.suggested_filename).name or "download")
        try:
            await download.save_as(target)
        except Exception as exc:
            logger.warning("Browser download failed: %s", exc)
            return None
        return str(target)

    async def _save_opened_pdf(self, page: Page) -> str | None:
        """A PDF the step opened counts as a download, as in a browser without a PDF viewer.

        Debian's Chromium shows PDFs in its built-in viewer instead of downloading them; the
        agent cannot read that viewer, so the document is fetched again (with the page's
        cookies) and saved beside the real downloads."""
        try:
            if await page.evaluate("document.contentType") != PDF_CONTENT_TYPE:
                return None
        except Exception:
            return None
        url = page.url
        parts = urlsplit(url)
        try:
            if parts.scheme in ("http", "https"):
                assert self._context is not None
                response = await self._context.request.get(url)
                if not response.ok:
                    logger.warning("Could not fetch the opened PDF %s: %s", url, response.status)
                    return None
                body = await response.body()
            elif parts.scheme == "file":
                body = await asyncio.to_thread(Path(url2pathname(parts.path)).read_bytes)
            else:
                return None
            name = Path(unquote(parts.path)).name or "download.pdf"
            folder = self.working_dir / DOWNLOAD_DIR
            target = folder / name
            await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
            await asyncio.to_thread(target.write_bytes, body)
        except Exception as exc:
            logger.warning("Could not save the opened PDF %s: %s", url, exc)
            return None
        return str(target)

    async def _finished_downloads(self) -> list[str]:
        if not self._downloads:
            return []
        done = await asyncio.gather(*self._downloads, return_exceptions=True)
        self._downloads = []
        return [path for path in done if isinstance(path, str)]


async def _element(page: Page, bid: str) -> Locator:
    escaped = bid.replace("\\", "\\\\").replace('"', '\\"')
    locator = page.locator(f'[{BID_ATTRIBUTE}="{escaped}"]')
    if await locator.count() == 0:
        raise ValueError(f'Could not find element with bid "{bid}"')
    return locator.first


async def _settle(page: Page) -> None:
    """Give a navigation the action started the chance to finish before we look."""
    for state in ("domcontentloaded", "load"):
        try:
            await page.wait_for_load_state(state, timeout=SETTLE_TIMEOUT_MS)  # type: ignore[arg-type]
        except Exception:
            return


async def _evaluate_settled(page: Page, script: str, arg: Any) -> Any:
    """Evaluate, retrying once if a navigation replaced the document meanwhile."""
    try:
        return await page.evaluate(script, arg)
    except Exception as exc:
        if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
            raise
        await _settle(page)
        return await page.evaluate(script, arg)


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _first_line(exc: BaseException) -> str:
    """Playwright appends a multi-line call log to its messages; the agent needs the gist."""
    text = str(exc).strip()
    return text.split("\n", 1)[0] if text else type(exc).__name__
