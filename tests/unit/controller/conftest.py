from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.controller.harness import World


@pytest.fixture
def world() -> Iterator[World]:
    w = World()
    try:
        yield w
    finally:
        w.close()
