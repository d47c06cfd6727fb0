"""Pytest fixtures shared by test packages. Import them in a conftest.py:

from tests.support.fixtures import scripted_llm  # noqa: F401
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# LiteLLM downloads its model cost map at import unless told otherwise; tests have no internet.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.scripted_llm import ScriptedLLMServer


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    """A started scripted LLM server with an empty script; push items with ``.push(...)``."""
    server = ScriptedLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
