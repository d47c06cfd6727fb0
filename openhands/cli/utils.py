"""Small helpers of the terminal app (cli.md §2.1, §4.2, §15).

Trusted folders in ``~/.openhands/config.toml``, the model/provider parsing behind the settings
menus, the verified model lists, usage-metrics bookkeeping and two plain file helpers.

This module is imported on the way to the first prompt, so it stays light: the ``Event`` and
``UsageMetrics`` types are only needed by the type checker.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import toml
from pydantic import BaseModel, Field

from openhands.utils.llm import OPENHANDS_MODELS

if TYPE_CHECKING:
    from openhands.cli.tui import UsageMetrics
    from openhands.events.event import Event

# Module-level so tests can point it elsewhere (cli.md §15).
_LOCAL_CONFIG_FILE_PATH = Path.home() / ".openhands" / "config.toml"

# ---------------------------------------------------------------------------------------------
# Trusted folders (cli.md §2.1)
# ---------------------------------------------------------------------------------------------
# The file is opened with bare ``open(path, mode)`` calls: the reference tests replace
# ``builtins.open`` and check exactly those arguments.


def _load_local_config() -> dict[str, object]:
    """The user's ``config.toml`` as a dict; ``{}`` when it is missing or unreadable."""
    if not _LOCAL_CONFIG_FILE_PATH.exists():
        return {}
    return _read_local_config()


def _read_local_config() -> dict[str, object]:
    """Parse the user's ``config.toml`` (known to exist); ``{}`` when it cannot be read."""
    try:
        with open(_LOCAL_CONFIG_FILE_PATH, "r") as file:  # noqa: UP015 (see above)
            return dict(toml.load(file))
    except (OSError, toml.TomlDecodeError, TypeError, ValueError):
        return {}


def get_local_config_trusted_dirs() -> list[str]:
    """``[sandbox] trusted_dirs`` of ``~/.openhands/config.toml``; ``[]`` when absent."""
    sandbox = _load_local_config().get("sandbox")
    if not isinstance(sandbox, dict):
        return []
    trusted = sandbox.get("trusted_dirs")
    if not isinstance(trusted, list):
        return []
    return [str(entry) for entry in trusted]


def add_local_config_trusted_dir(folder_path: str) -> None:
    """Append ``folder_path`` to ``[sandbox] trusted_dirs``, creating the file if needed.

    Other keys of the file are kept. An unreadable file is replaced by one holding only this key,
    since losing a broken file is better than never being able to trust a folder.
    """
    if _LOCAL_CONFIG_FILE_PATH.exists():
        config = _read_local_config()
    else:
        _LOCAL_CONFIG_FILE_PATH.parent.mkdir(parents=True, exist_ok=True)
        config = {}

    sandbox = config.get("sandbox")
    if not isinstance(sandbox, dict):
        sandbox = {}
        config["sandbox"] = sandbox
    trusted = sandbox.get("trusted_dirs")
    if not isinstance(trusted, list):
        trusted = []
        sandbox["trusted_dirs"] = trusted
    if folder_path not in trusted:
        trusted.append(folder_path)

    with open(_LOCAL_CONFIG_FILE_PATH, "w") as file:
        toml.dump(config, file)


# ---------------------------------------------------------------------------------------------
# Usage metrics
# ---------------------------------------------------------------------------------------------


def update_usage_metrics(event: Event, usage_metrics: UsageMetrics) -> None:
    """Take over the LLM metrics an event carries.

    An event's ``llm_metrics`` is a snapshot of the whole conversation's accumulated metrics, so
    the latest one replaces what we had rather than being added to it.
    """
    llm_metrics = getattr(event, "llm_metrics", None)
    if llm_metrics is not None:
        usage_metrics.metrics = llm_metrics


# ---------------------------------------------------------------------------------------------
# Models and providers (cli.md §4.2 and the rules at the end of §15)
# ---------------------------------------------------------------------------------------------

VERIFIED_PROVIDERS: list[str] = ["openhands", "anthropic", "openai", "mistral"]

# The first entry of each list is the default model the basic settings flow proposes.
VERIFIED_OPENAI_MODELS: list[str] = [
    "gpt-5-2025-08-07",
    "gpt-5-mini-2025-08-07",
    "o4-mini",
    "o3",
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-2025-04-14",
    "gpt-4-32k",
    "o1-mini",
    "codex-mini-latest",
]

VERIFIED_ANTHROPIC_MODELS: list[str] = [
    "claude-sonnet-4-20250514",
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-20250514",
    "claude-opus-4-1-20250805",
    "claude-3-7-sonnet-20250219",
    "claude-3-5-sonnet-20241022",
    "claude-3-5-sonnet-20240620",
    "claude-3-5-haiku-20241022",
    "claude-3-opus-20240229",
    "claude-3-sonnet-20240229",
    "claude-3-haiku-20240307",
    "claude-2.1",
    "claude-2",
]

VERIFIED_MISTRAL_MODELS: list[str] = [
    "devstral-small-2505",
    "devstral-small-2507",
    "devstral-medium-2507",
]

# The OpenHands LLM proxy's models are owned by ``openhands.utils.llm`` (the web settings use
# them too); here they are listed without their ``openhands/`` prefix.
_OPENHANDS_PREFIX = "openhands/"
VERIFIED_OPENHANDS_MODELS: list[str] = [
    name.removeprefix(_OPENHANDS_PREFIX) for name in OPENHANDS_MODELS
]

# Which provider a bare model name belongs to; the first list that has it wins.
_IMPLICIT_PROVIDERS: tuple[tuple[str, list[str]], ...] = (
    ("openai", VERIFIED_OPENAI_MODELS),
    ("anthropic", VERIFIED_ANTHROPIC_MODELS),
    ("mistral", VERIFIED_MISTRAL_MODELS),
    ("openhands", VERIFIED_OPENHANDS_MODELS),
)

_MODEL_INFO_KEYS = frozenset({"provider", "model", "separator"})
_PROVIDER_INFO_KEYS = frozenset({"separator", "models"})


class ModelInfo(BaseModel):
    """A model name split into provider, separator and the provider's own model id."""

    provider: str
    model: str
    separator: str

    def __getitem__(self, key: str) -> str:
        # Dict-style access is part of the contract; only the three fields are keys.
        if key not in _MODEL_INFO_KEYS:
            raise KeyError(key)
        value: str = getattr(self, key)
        return value


class ProviderInfo(BaseModel):
    """The models of one provider and the separator its full names use."""

    separator: str
    models: list[str] = Field(default_factory=list)

    def __getitem__(self, key: str) -> str | list[str]:
        if key not in _PROVIDER_INFO_KEYS:
            raise KeyError(key)
        value: str | list[str] = getattr(self, key)
        return value

    def get(self, key: str, default: str | list[str] | None = None) -> str | list[str] | None:
        """Like ``dict.get``: the field's value, or ``default`` for an unknown key."""
        if key not in _PROVIDER_INFO_KEYS:
            return default
        return self[key]


def is_number(char: str) -> bool:
    """Whether ``char`` is a digit."""
    return char.isdigit()


def split_is_actually_version(split: list[str]) -> bool:
    """Whether a split on ``.`` cut through a version number (``gpt-4.1`` → ``gpt-4``, ``1``)
    instead of separating a provider from a model."""
    return len(split) > 1 and bool(split[1]) and is_number(split[1][0])


def _implicit_provider(model: str) -> str | None:
    for provider, models in _IMPLICIT_PROVIDERS:
        if model in models:
            return provider
    return None


def extract_model_and_provider(model: str) -> ModelInfo:
    """Split a LiteLLM model name into provider, separator and model id.

    ``provider/model`` and ``provider.model`` are split as written (a ``.`` that starts a version
    number does not count). A bare verified model name gets its provider with ``/``; anything
    else is returned whole with an empty provider and separator.
    """
    separator = "/"
    parts = model.split(separator)
    if len(parts) == 1:
        separator = "."
        parts = model.split(separator)
        if split_is_actually_version(parts):
            parts = [model]

    if len(parts) > 1:
        return ModelInfo(provider=parts[0], model=separator.join(parts[1:]), separator=separator)

    provider = _implicit_provider(model)
    if provider is None:
        return ModelInfo(provider="", model=model, separator="")
    return ModelInfo(provider=provider, model=model, separator="/")


def organize_models_and_providers(models: list[str]) -> dict[str, ProviderInfo]:
    """Group model names by provider (``other`` when none can be told).

    ``anthropic.<model>`` names are dropped: that spelling is LiteLLM's outdated one and does not
    work with Anthropic any more.
    """
    grouped: dict[str, ProviderInfo] = {}
    for name in models:
        info = extract_model_and_provider(name)
        if info.provider == "anthropic" and info.separator == ".":
            continue
        key = info.provider or "other"
        group = grouped.setdefault(key, ProviderInfo(separator=info.separator, models=[]))
        group.models.append(info.model)
    return grouped


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def read_file(file_path: str | Path) -> str:
    """The whole text of ``file_path``."""
    with open(file_path, "r") as file:  # noqa: UP015 (tests patch builtins.open)
        return file.read()


def write_to_file(file_path: str | Path, content: str) -> None:
    """Replace the content of ``file_path`` with ``content``."""
    with open(file_path, "w") as file:
        file.write(content)
