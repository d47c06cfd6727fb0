"""openhands.cli.utils: trusted folders, usage metrics, model/provider parsing, file helpers."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
import toml

from openhands.cli import utils
from openhands.cli.utils import (
    VERIFIED_ANTHROPIC_MODELS,
    VERIFIED_MISTRAL_MODELS,
    VERIFIED_OPENAI_MODELS,
    VERIFIED_OPENHANDS_MODELS,
    VERIFIED_PROVIDERS,
    ModelInfo,
    ProviderInfo,
    add_local_config_trusted_dir,
    extract_model_and_provider,
    get_local_config_trusted_dirs,
    is_number,
    organize_models_and_providers,
    read_file,
    split_is_actually_version,
    update_usage_metrics,
    write_to_file,
)
from openhands.utils.llm import OPENHANDS_MODELS


@pytest.fixture
def config_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home" / ".openhands" / "config.toml"
    monkeypatch.setattr(utils, "_LOCAL_CONFIG_FILE_PATH", path)
    return path


# --- trusted folders -------------------------------------------------------------------------


def test_default_config_path_is_under_home() -> None:
    expected = Path.home() / ".openhands" / "config.toml"
    assert expected == utils._LOCAL_CONFIG_FILE_PATH


def test_no_config_file_means_no_trusted_dirs(config_path: Path) -> None:
    assert get_local_config_trusted_dirs() == []
    assert not config_path.exists()


def test_trusted_dirs_are_read_from_sandbox_table(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text('[sandbox]\ntrusted_dirs = ["/a", "/b"]\n')
    assert get_local_config_trusted_dirs() == ["/a", "/b"]


@pytest.mark.parametrize(
    "content",
    [
        "this is [not toml",
        "[core]\nworkspace_base = '/w'\n",
        "[sandbox]\ntimeout = 5\n",
        "sandbox = 3\n",
        "[sandbox]\ntrusted_dirs = 'not a list'\n",
    ],
)
def test_unusable_config_means_no_trusted_dirs(config_path: Path, content: str) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text(content)
    assert get_local_config_trusted_dirs() == []


def test_add_trusted_dir_creates_directory_and_file(config_path: Path) -> None:
    add_local_config_trusted_dir("/work/project")

    assert toml.loads(config_path.read_text()) == {"sandbox": {"trusted_dirs": ["/work/project"]}}
    assert get_local_config_trusted_dirs() == ["/work/project"]


def test_add_trusted_dir_keeps_other_settings_and_is_idempotent(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text(
        '[core]\nworkspace_base = "/w"\n\n[sandbox]\ntimeout = 7\ntrusted_dirs = ["/a"]\n'
        '\n[mcp]\nsse_servers = [{url = "http://x/sse"}]\n'
    )

    add_local_config_trusted_dir("/b")
    add_local_config_trusted_dir("/b")
    add_local_config_trusted_dir("/a")

    data = toml.loads(config_path.read_text())
    assert data["sandbox"] == {"timeout": 7, "trusted_dirs": ["/a", "/b"]}
    assert data["core"] == {"workspace_base": "/w"}
    assert data["mcp"]["sse_servers"] == [{"url": "http://x/sse"}]


def test_add_trusted_dir_replaces_unreadable_file(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text("garbage = = =")

    add_local_config_trusted_dir("/p")

    assert toml.loads(config_path.read_text()) == {"sandbox": {"trusted_dirs": ["/p"]}}


def test_add_trusted_dir_repairs_wrongly_typed_keys(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text('sandbox = "oops"\n')
    add_local_config_trusted_dir("/p")
    assert get_local_config_trusted_dirs() == ["/p"]


# --- usage metrics ---------------------------------------------------------------------------


class _Holder:
    """Stands in for tui.UsageMetrics: only the ``metrics`` attribute matters here."""

    def __init__(self, metrics: object) -> None:
        self.metrics = metrics


class _Event:
    def __init__(self, llm_metrics: object) -> None:
        self.llm_metrics = llm_metrics


def _update(event: object, holder: _Holder) -> None:
    update_usage_metrics(cast("utils.Event", event), cast("utils.UsageMetrics", holder))


def test_event_metrics_replace_usage_metrics() -> None:
    from openhands.events.action import MessageAction
    from openhands.llm.metrics import Metrics

    metrics = Metrics(model_name="m")
    metrics.add_cost(0.25)
    event = MessageAction(content="hi")
    event.llm_metrics = metrics
    holder = _Holder(Metrics())

    _update(event, holder)

    assert holder.metrics is metrics


def test_event_without_metrics_changes_nothing() -> None:
    from openhands.events.action import MessageAction

    original = object()
    holder = _Holder(original)
    _update(MessageAction(content="hi"), holder)
    _update(_Event(None), holder)
    _update(object(), holder)
    assert holder.metrics is original


# --- models and providers --------------------------------------------------------------------


def test_verified_lists() -> None:
    assert VERIFIED_PROVIDERS == ["openhands", "anthropic", "openai", "mistral"]
    # cli.md §4.2: the default model of each provider is its first verified one.
    assert VERIFIED_ANTHROPIC_MODELS[0] == "claude-sonnet-4-20250514"
    assert VERIFIED_OPENAI_MODELS[0] == "gpt-5-2025-08-07"
    assert VERIFIED_MISTRAL_MODELS[0] == "devstral-small-2505"
    assert VERIFIED_OPENHANDS_MODELS[0] == "claude-sonnet-4-20250514"


def test_openhands_models_come_from_the_shared_list() -> None:
    assert [f"openhands/{name}" for name in VERIFIED_OPENHANDS_MODELS] == list(OPENHANDS_MODELS)


@pytest.mark.parametrize(
    ("name", "provider", "model", "separator"),
    [
        ("openai/gpt-4o", "openai", "gpt-4o", "/"),
        ("anthropic/claude-sonnet-4-20250514", "anthropic", "claude-sonnet-4-20250514", "/"),
        ("openrouter/meta/llama-3", "openrouter", "meta/llama-3", "/"),
        ("anthropic.claude-3-7", "anthropic", "claude-3-7", "."),
        ("bedrock.anthropic.claude-v2", "bedrock", "anthropic.claude-v2", "."),
        ("gpt-4o", "openai", "gpt-4o", "/"),
        ("o3", "openai", "o3", "/"),
        ("o4-mini", "openai", "o4-mini", "/"),
        ("gpt-4.1", "openai", "gpt-4.1", "/"),
        ("claude-sonnet-4-20250514", "anthropic", "claude-sonnet-4-20250514", "/"),
        ("claude-2.1", "anthropic", "claude-2.1", "/"),
        ("devstral-small-2505", "mistral", "devstral-small-2505", "/"),
        ("qwen3-coder-480b", "openhands", "qwen3-coder-480b", "/"),
        ("gemini-2.5-pro", "openhands", "gemini-2.5-pro", "/"),
        ("some-model", "", "some-model", ""),
        ("llama-3.1-70b", "", "llama-3.1-70b", ""),
        ("", "", "", ""),
    ],
)
def test_extract_model_and_provider(name: str, provider: str, model: str, separator: str) -> None:
    info = extract_model_and_provider(name)
    assert (info.provider, info.model, info.separator) == (provider, model, separator)
    assert (info["provider"], info["model"], info["separator"]) == (provider, model, separator)


def test_model_info_item_access_rejects_other_keys() -> None:
    info = ModelInfo(provider="p", model="m", separator="/")
    with pytest.raises(KeyError):
        info["models"]
    with pytest.raises(KeyError):
        info["model_dump"]


def test_provider_info_item_access_and_get() -> None:
    info = ProviderInfo(separator="/", models=["a"])
    assert info["separator"] == "/"
    assert info["models"] == ["a"]
    assert info.get("models") == ["a"]
    assert info.get("nope") is None
    assert info.get("nope", "fallback") == "fallback"
    with pytest.raises(KeyError):
        info["nope"]
    assert ProviderInfo(separator=".").models == []


def test_organize_models_and_providers() -> None:
    result = organize_models_and_providers(
        [
            "openai/gpt-4o",
            "gpt-4o-mini",
            "o3",
            "anthropic/claude-sonnet-4-20250514",
            "anthropic.claude-3-5-sonnet-20241022-v2:0",
            "mistral/devstral-small-2505",
            "devstral-medium-2507",
            "bedrock.amazon.titan",
            "my-local-model",
            "llama-3.1-70b",
        ]
    )

    assert set(result) == {"openai", "anthropic", "mistral", "bedrock", "other"}
    assert result["openai"].models == ["gpt-4o", "gpt-4o-mini", "o3"]
    assert result["openai"]["separator"] == "/"
    # The dot-separated Anthropic spelling is dropped.
    assert result["anthropic"].models == ["claude-sonnet-4-20250514"]
    assert result["mistral"].models == ["devstral-small-2505", "devstral-medium-2507"]
    assert result["bedrock"].separator == "."
    assert result["bedrock"].models == ["amazon.titan"]
    assert result["other"].models == ["my-local-model", "llama-3.1-70b"]
    assert result["other"].separator == ""


def test_organize_nothing() -> None:
    assert organize_models_and_providers([]) == {}


@pytest.mark.parametrize(
    ("char", "expected"), [("0", True), ("7", True), ("a", False), ("", False)]
)
def test_is_number(char: str, expected: bool) -> None:
    assert is_number(char) is expected


@pytest.mark.parametrize(
    ("split", "expected"),
    [
        (["gpt-4", "1"], True),
        (["claude-2", "1-preview"], True),
        (["anthropic", "claude"], False),
        (["single"], False),
        (["trailing", ""], False),
    ],
)
def test_split_is_actually_version(split: list[str], expected: bool) -> None:
    assert split_is_actually_version(split) is expected


# --- files -----------------------------------------------------------------------------------


def test_write_then_read_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    write_to_file(path, "first\nline two ✓\n")
    assert read_file(path) == "first\nline two ✓\n"
    write_to_file(str(path), "replaced")
    assert read_file(str(path)) == "replaced"


def test_read_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_file(tmp_path / "missing.txt")
