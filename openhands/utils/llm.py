"""The model names the settings pages and the terminal app offer (cli.md §4.2).

LiteLLM's own model table (the price map ships with LiteLLM, nothing is downloaded), the
Bedrock models LiteLLM knows when an LLM section carries AWS credentials, the models an
Ollama server reports for each section with ``ollama_base_url``, and the ``openhands/…``
models of the OpenHands LLM proxy.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from openhands.core.config.openhands_config import OpenHandsConfig

logger = logging.getLogger(__name__)

OPENHANDS_MODELS: tuple[str, ...] = (
    "openhands/claude-sonnet-4-20250514",
    "openhands/claude-sonnet-4-5-20250929",
    "openhands/claude-opus-4-20250514",
    "openhands/gpt-5-2025-08-07",
    "openhands/gpt-5-mini-2025-08-07",
    "openhands/o3",
    "openhands/o4-mini",
    "openhands/gemini-2.5-pro",
    "openhands/devstral-small-2505",
    "openhands/devstral-small-2507",
    "openhands/devstral-medium-2507",
    "openhands/kimi-k2-0711-preview",
    "openhands/qwen3-coder-480b",
)
_OLLAMA_TIMEOUT_SECONDS = 3.0


_COST_MAP_FILE = "model_prices_and_context_window_backup.json"


@dataclass(frozen=True)
class LiteLLMModels:
    """What LiteLLM knows of models: ``provider_ids`` are its price map's entries as
    ``provider/model`` (the form the web settings offer), ``listed`` its ``model_list``
    as it is (bare names among them)."""

    provider_ids: frozenset[str]
    listed: frozenset[str]


def _price_map_file() -> Path | None:
    """The price map the installed LiteLLM loads, found without importing the package.

    None when LiteLLM may load another one (without ``LITELLM_LOCAL_MODEL_COST_MAP`` on, it
    fetches the map from the network first) or is not installed."""
    if os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() != "true":
        return None
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / _COST_MAP_FILE


# Bumped when what the table keeps changes, so a cache an older version wrote is rebuilt.
_TABLE_RULES = "conversation-modes-1"


def _model_cache_file() -> tuple[Path, str] | None:
    """Where the model table of the installed LiteLLM is cached, and the key it must carry.

    Importing LiteLLM takes seconds; the table depends only on the LiteLLM installation
    (with ``LITELLM_LOCAL_MODEL_COST_MAP`` on, its price map is the file it ships). So the
    table is kept in the user's cache directory under a key made of that file's identity:
    the terminal app's model list after a restart then needs no LiteLLM. None when the map
    may come from the network.
    """
    cost_map = _price_map_file()
    if cost_map is None:
        return None
    try:
        info = cost_map.stat()
    except OSError:
        return None
    key = f"{_TABLE_RULES}:{cost_map}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "openhands" / "litellm-models.json", key


def _expand_aliases(entries: dict[str, Any]) -> dict[str, Any]:
    """The price map as LiteLLM holds it once loaded: an entry's ``aliases`` become entries
    of their own (sharing its info); an alias naming an existing entry, or one an earlier
    entry claimed, is skipped, as LiteLLM does."""
    added: dict[str, Any] = {}
    for info in entries.values():
        aliases = info.get("aliases") if isinstance(info, dict) else None
        if not isinstance(aliases, list):
            continue
        for alias in aliases:
            if isinstance(alias, str) and alias not in entries and alias not in added:
                added[alias] = info
    return {**entries, **added}


# Price map modes of models that answer a conversation. The map also prices embedding,
# image, audio, rerank, OCR and search models, which an agent's LLM setting cannot use; an
# entry without a mode is kept (LiteLLM treats it as chat).
CONVERSATION_MODES = frozenset({"chat", "completion", "responses"})


def _provider_ids(entries: Mapping[str, Any]) -> frozenset[str]:
    """``provider/model`` for each price map entry of a conversation model whose name lacks
    a provider and whose info names one; other names as they are (``sample_spec`` is the
    map's own example)."""
    ids: set[str] = set()
    for name, info in entries.items():
        if name == "sample_spec":
            continue
        mode = info.get("mode") if isinstance(info, dict) else None
        if mode is not None and mode not in CONVERSATION_MODES:
            continue
        provider = info.get("litellm_provider") if isinstance(info, dict) else None
        ids.add(name if "/" in name or not provider else f"{provider}/{name}")
    return frozenset(ids)


def price_map_provider_ids() -> frozenset[str] | None:
    """The web settings' LiteLLM model ids, read straight from the price map LiteLLM ships
    (tens of milliseconds, where importing LiteLLM takes seconds). None when that file is not
    what LiteLLM would load, or cannot be read."""
    cost_map = _price_map_file()
    if cost_map is None:
        return None
    try:
        entries = orjson.loads(cost_map.read_bytes())
    except (OSError, orjson.JSONDecodeError) as error:
        logger.debug("Could not read LiteLLM's price map %s: %s", cost_map, error)
        return None
    if not isinstance(entries, dict):
        return None
    return _provider_ids(_expand_aliases(entries))


def _read_model_cache(path: Path, key: str) -> LiteLLMModels | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    provider_ids, listed = data.get("provider_ids"), data.get("listed")
    if not isinstance(provider_ids, list) or not isinstance(listed, list):
        return None
    return LiteLLMModels(frozenset(map(str, provider_ids)), frozenset(map(str, listed)))


def _write_model_cache(path: Path, key: str, table: LiteLLMModels) -> None:
    data = {"key": key, "provider_ids": sorted(table.provider_ids), "listed": sorted(table.listed)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=".litellm-models-", delete=False
        ) as handle:
            json.dump(data, handle)
        try:
            os.replace(handle.name, path)
        except OSError:
            os.unlink(handle.name)
            raise
    except OSError as error:  # a read-only home only costs the next start the import
        logger.debug("Could not cache the LiteLLM model list in %s: %s", path, error)


def _import_litellm() -> ModuleType:
    return importlib.import_module("litellm")


def litellm_model_table(load: Callable[[], ModuleType] = _import_litellm) -> LiteLLMModels:
    """LiteLLM's model table, from the cache of :func:`_model_cache_file` when it matches
    the installation, else from the module ``load`` returns (then cached)."""
    cache = _model_cache_file()
    if cache is not None:
        cached = _read_model_cache(*cache)
        if cached is not None:
            return cached
    litellm = load()
    table = LiteLLMModels(_provider_ids(litellm.model_cost), frozenset(litellm.model_list))
    if cache is not None:
        _write_model_cache(cache[0], cache[1], table)
    return table


def litellm_provider_ids(load: Callable[[], ModuleType] = _import_litellm) -> frozenset[str]:
    """What the web settings offer of LiteLLM's models: from its shipped price map when
    that is what it loads, else from the module ``load`` returns (or the cache)."""
    from_file = price_map_provider_ids()
    if from_file is not None:
        return from_file
    return litellm_model_table(load).provider_ids


def litellm_models() -> set[str]:
    """LiteLLM's known models: its price map's as ``provider/model`` where LiteLLM names
    the provider, and its ``model_list``."""
    table = litellm_model_table()
    return set(table.provider_ids | table.listed)


def ollama_models(base_url: str) -> list[str]:
    """``ollama/<name>`` for each model the Ollama server at ``base_url`` has; [] when it
    cannot be reached."""
    import httpx

    try:
        response = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=_OLLAMA_TIMEOUT_SECONDS)
        response.raise_for_status()
        entries = response.json().get("models", [])
    except (httpx.HTTPError, ValueError, AttributeError) as error:
        logger.info("Could not list the models of Ollama at %s: %s", base_url, error)
        return []
    return [f"ollama/{entry['name']}" for entry in entries if isinstance(entry, dict)]


def get_supported_llm_models(config: OpenHandsConfig) -> list[str]:
    """Every model name to offer, sorted, without duplicates."""
    models = litellm_models()
    llm_configs = list(config.llms.values())
    if any(c.aws_region_name or c.aws_access_key_id for c in llm_configs):
        import litellm

        models.update(f"bedrock/{name}" for name in litellm.bedrock_models)
    for base_url in {c.ollama_base_url for c in llm_configs if c.ollama_base_url}:
        models.update(ollama_models(base_url))
    models.update(OPENHANDS_MODELS)
    return sorted(models)
