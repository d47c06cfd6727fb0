"""What the UI-language tests share: the words of the locale files (so a test checks the
wiring, not a copy of the translations) and the right-to-left layout check."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from playwright.sync_api import Page

from tests.e2e.conftest import FRONTEND

LOCALES = FRONTEND / "src" / "i18n" / "locales"


@cache
def words(language: str, namespace: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LOCALES / language / f"{namespace}.json").read_text())
    return data


def assert_reads_right_to_left(page: Page, first: str, second: str) -> None:
    """``first`` (earlier in the reading order) sits right of ``second``, and nothing sticks
    out sideways (an element parked off-screen to the left would, in right to left)."""
    first_box = page.locator(first).bounding_box()
    second_box = page.locator(second).bounding_box()
    assert first_box is not None and second_box is not None
    assert first_box["x"] > second_box["x"], (first_box, second_box)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, overflow
