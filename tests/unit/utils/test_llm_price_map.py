"""The web settings' model list comes from the price map file LiteLLM ships, read without
importing LiteLLM (issue 23: the first ``/models`` of a fresh install took seconds). It
must be exactly what the imported package yields."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openhands.utils import llm

_CHILD = """
import json, sys
from openhands.utils.llm import litellm_provider_ids
from openhands.server.routes.public import model_list
ids = litellm_provider_ids()
print(json.dumps({"imported": "litellm" in sys.modules, "count": len(ids),
                  "listed": len(model_list())}))
"""


@pytest.fixture
def local_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty model cache and LiteLLM's own price map in force."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return tmp_path


def _ids_from_the_package() -> frozenset[str]:
    """What the model list was computed from before: the imported ``litellm.model_cost``."""
    import litellm

    return llm._provider_ids(litellm.model_cost)


def test_the_file_gives_what_the_imported_package_gives(local_map: Path) -> None:
    from_file = llm.price_map_provider_ids()
    assert from_file is not None and len(from_file) > 1000
    assert from_file == _ids_from_the_package()
    assert "openai/gpt-4o" in from_file and "sample_spec" not in from_file


def test_the_route_answers_what_it_answered_with_litellm(local_map: Path) -> None:
    from openhands.server.routes import public

    public.litellm_models.cache_clear()
    public.model_list.cache_clear()
    public.models_body.cache_clear()
    try:
        expected = sorted(_ids_from_the_package() | set(llm.OPENHANDS_MODELS))
        assert json.loads(public.models_body()) == expected
    finally:
        public.litellm_models.cache_clear()
        public.model_list.cache_clear()
        public.models_body.cache_clear()


def test_a_fresh_process_lists_models_without_importing_litellm(local_map: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(local_map / "fresh-cache")}
    result = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, check=True
    )
    child = json.loads(result.stdout.strip().splitlines()[-1])
    assert child["imported"] is False
    assert child["count"] == len(_ids_from_the_package())
    assert child["listed"] == len(_ids_from_the_package() | set(llm.OPENHANDS_MODELS))
    assert not (local_map / "fresh-cache").exists()  # nothing had to be cached


def _write_map(path: Path, entries: dict[str, Any]) -> Path:
    path.write_text(json.dumps(entries))
    return path


def test_aliases_are_expanded_as_litellm_expands_them(
    local_map: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litellm.litellm_core_utils.get_model_cost_map import _expand_model_aliases

    entries: dict[str, Any] = {
        "sample_spec": {"litellm_provider": "openai"},
        "gpt-x": {"litellm_provider": "openai", "aliases": ["gpt-x-latest", "claude-y"]},
        "claude-y": {"litellm_provider": "anthropic", "aliases": ["gpt-x-latest", "cy"]},
        "bedrock/z": {"litellm_provider": "bedrock"},
        "no-provider": {"mode": "chat"},
        "odd": {"litellm_provider": "openai", "aliases": "not-a-list"},
    }
    path = _write_map(local_map / "map.json", entries)
    monkeypatch.setattr(llm, "_price_map_file", lambda: path)
    expected = llm._provider_ids(_expand_model_aliases(json.loads(path.read_text())))
    got = llm.price_map_provider_ids()
    assert got == expected
    assert got == {
        "openai/gpt-x",
        "openai/gpt-x-latest",  # claimed by the first entry that names it
        "anthropic/claude-y",  # an alias naming an entry does not replace it
        "anthropic/cy",
        "bedrock/z",
        "no-provider",
        "openai/odd",
    }


@pytest.mark.parametrize("content", ["not json", "[1, 2]"])
def test_an_unreadable_map_falls_back_to_the_package(
    local_map: Path, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    path = local_map / "map.json"
    path.write_text(content)
    monkeypatch.setattr(llm, "_price_map_file", lambda: path)
    assert llm.price_map_provider_ids() is None
    assert llm.litellm_provider_ids() == _ids_from_the_package()


def test_a_map_that_may_come_from_the_network_is_not_read(
    local_map: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    assert llm.price_map_provider_ids() is None
    loaded: list[bool] = []

    def load() -> Any:
        loaded.append(True)
        import litellm

        return litellm

    assert llm.litellm_provider_ids(load) == _ids_from_the_package()
    assert loaded == [True]


def test_only_models_that_hold_a_conversation_are_offered() -> None:
    entries = {
        "gpt-x": {"litellm_provider": "openai", "mode": "chat"},
        "old-completer": {"litellm_provider": "openai", "mode": "completion"},
        "gpt-x-pro": {"litellm_provider": "openai", "mode": "responses"},
        "no-mode": {"litellm_provider": "acme"},
        "text-embedding-x": {"litellm_provider": "openai", "mode": "embedding"},
        "1024-x-1024/image-x": {"litellm_provider": "openai", "mode": "image_generation"},
        "whisper-x": {"litellm_provider": "openai", "mode": "audio_transcription"},
        "rerank-x": {"litellm_provider": "cohere", "mode": "rerank"},
    }
    assert llm._provider_ids(entries) == {
        "openai/gpt-x",
        "openai/old-completer",
        "openai/gpt-x-pro",
        "acme/no-mode",
    }


def test_the_shipped_list_has_chat_models_and_no_embedding_models(local_map: Path) -> None:
    ids = llm.price_map_provider_ids()
    assert ids is not None
    assert "openai/gpt-4o" in ids
    assert "openai/text-embedding-3-small" not in ids
    assert "openai/dall-e-3" not in ids
