"""The LiteLLM model list is cached per LiteLLM installation, so a restarted server answers
its first ``/models`` without importing LiteLLM (seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from openhands.utils import llm

_CHILD = """
import json, sys
from openhands.utils.llm import litellm_models
models = litellm_models()
print(json.dumps({"imported": "litellm" in sys.modules, "count": len(models)}))
"""


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return tmp_path


def _from_package() -> set[str]:
    """The model names computed from the imported package, no cache involved."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(llm, "_model_cache_file", lambda: None)
        return llm.litellm_models()


def _cache_file(cache_home: Path) -> Path:
    return cache_home / "openhands" / "litellm-models.json"


def _run_child(cache_home: Path) -> dict[str, object]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    result = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_first_call_computes_and_caches_the_package_list(cache_home: Path) -> None:
    models = llm.litellm_models()
    assert models == _from_package()
    stored = json.loads(_cache_file(cache_home).read_text())
    assert set(stored["provider_ids"]) | set(stored["listed"]) == models
    assert "model_prices_and_context_window_backup.json" in stored["key"]


def test_a_new_process_answers_from_the_cache_without_litellm(cache_home: Path) -> None:
    expected = len(llm.litellm_models())
    assert _run_child(cache_home) == {"imported": False, "count": expected}


def test_a_cache_of_another_installation_is_replaced(cache_home: Path) -> None:
    llm.litellm_models()
    path = _cache_file(cache_home)
    stale = json.loads(path.read_text())
    stale["key"] = "elsewhere:1:2:3"
    stale["provider_ids"] = ["stale/model"]
    path.write_text(json.dumps(stale))
    child = _run_child(cache_home)
    assert child["imported"] is True  # the stale list is not trusted
    assert "stale/model" not in json.loads(path.read_text())["provider_ids"]
    assert json.loads(path.read_text())["key"] != "elsewhere:1:2:3"


@pytest.mark.parametrize("content", ["not json", "[]", '{"key": 1}'])
def test_a_damaged_cache_is_ignored(cache_home: Path, content: str) -> None:
    path = _cache_file(cache_home)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert llm.litellm_models() == _from_package()


def test_no_cache_when_the_price_map_may_come_from_the_network(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    assert llm._model_cache_file() is None
    llm.litellm_models()
    assert not _cache_file(cache_home).exists()


def test_an_unwritable_cache_directory_only_costs_the_cache(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = cache_home / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # "openhands" cannot be made under a file
    assert llm.litellm_models() == _from_package()


def test_the_options_route_reads_the_cache_before_waiting_for_litellm(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openhands.llm import preload
    from openhands.server.routes import public

    expected = llm.litellm_model_table().provider_ids  # fills the cache

    def no_import() -> object:
        raise AssertionError("the route waited for LiteLLM although the cache matches")

    monkeypatch.setattr(preload, "load_litellm", no_import)
    assert set(public.litellm_models.__wrapped__()) == expected
