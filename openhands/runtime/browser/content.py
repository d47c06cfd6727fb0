"""The ``content`` text of a BrowserOutputObservation, the part the agent reads (runtime.md §8)."""

from __future__ import annotations

ERROR_BEGIN = "================ BEGIN error message ===============\n"
ERROR_END = "================ END error message ===============\n"
AXTREE_HEADING_COMPLETE = "Accessibility tree of the COMPLETE webpage:\n"
AXTREE_HEADING_VISIBLE = (
    "Accessibility tree of the VISIBLE portion of the webpage (elements outside the "
    "viewport are left out):\n"
)
AXTREE_NOTE = (
    "Note: [bid] is the unique alpha-numeric identifier at the beginning of lines for each "
    "element in the AXTree. Always use bid to refer to elements in your actions.\n"
)
AXTREE_BEGIN = "============== BEGIN accessibility tree ==============\n"
AXTREE_END = "============== END accessibility tree ==============\n"
PAGE_BEGIN = "============== BEGIN webpage content ==============\n"
PAGE_END = "============== END webpage content ==============\n"


def _error_block(context: str, error: str) -> str:
    return f"{ERROR_BEGIN}The following error occurred {context}:\n{error}\n{ERROR_END}"


def browse_content(url: str, error: str, page_text: str) -> str:
    """What a ``browse`` (BrowseURLAction) shows: URL, any error, the page as Markdown."""
    text = f"[Current URL: {url}]\n"
    if error:
        text += _error_block("when trying to visit the URL", error)
    return f"{text}{PAGE_BEGIN}{page_text}\n{PAGE_END}"


def interactive_content(
    url: str,
    focused_bid: str,
    screenshot_path: str | None,
    error: str,
    axtree_text: str,
    visible_only: bool = False,
) -> str:
    """What a ``browse_interactive`` step shows: URL, focus, outcome, accessibility tree."""
    text = f"[Current URL: {url}]\n[Focused element bid: {focused_bid}]\n"
    if screenshot_path:
        text += f"[Screenshot saved to: {screenshot_path}]\n"
    text += "\n"
    if error:
        text += _error_block("when executing the last action", error)
    else:
        text += "[Action executed successfully.]\n"
    heading = AXTREE_HEADING_VISIBLE if visible_only else AXTREE_HEADING_COMPLETE
    return f"{text}{heading}{AXTREE_NOTE}{AXTREE_BEGIN}{axtree_text}\n{AXTREE_END}"
