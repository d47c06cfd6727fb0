"""What a model can do, decided from its name alone (glob patterns per feature)."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

FUNCTION_CALLING_PATTERNS: tuple[str, ...] = (
    "claude-3-7-sonnet*",
    "claude-3.7-sonnet*",
    "claude-sonnet-3-7-latest",
    "claude-3-5-sonnet*",
    "claude-3.5-sonnet*",
    "claude-3.5-haiku*",
    "claude-3-5-haiku*",
    "claude-sonnet-4*",
    "claude-opus-4*",
    "gpt-4o*",
    "gpt-4.1",
    "gpt-5*",
    "o1-2024-12-17",
    "o3*",
    "o4-mini*",
    "gemini-2.5-pro*",
    "kimi-k2-0711-preview",
    "kimi-k2-instruct",
    "qwen3-coder*",
    "qwen3-coder-480b-a35b-instruct",
    "deepseek-chat",
)

REASONING_EFFORT_PATTERNS: tuple[str, ...] = (
    "o1-2024-12-17",
    "o1",
    "o3",
    "o3-2025-04-16",
    "o3-mini-2025-01-31",
    "o3-mini",
    "o4-mini",
    "o4-mini-2025-04-16",
    "gemini-2.5-flash",
    "gemini-2.5-pro",
    "gpt-5*",
    "deepseek-r1-0528*",
    "claude-sonnet-4-5*",
)

PROMPT_CACHE_PATTERNS: tuple[str, ...] = (
    "claude-3-7-sonnet*",
    "claude-3.7-sonnet*",
    "claude-sonnet-3-7-latest",
    "claude-3-5-sonnet*",
    "claude-3-5-haiku*",
    "claude-3.5-haiku*",
    "claude-3-haiku-20240307",
    "claude-3-opus-20240229",
    "claude-sonnet-4*",
    "claude-opus-4*",
)

NO_STOP_WORDS_PATTERNS: tuple[str, ...] = (
    "o1*",
    "grok-4-0709",
    "grok-code-fast-1",
    "deepseek-r1-0528*",
)


@dataclass(frozen=True)
class ModelFeatures:
    supports_function_calling: bool
    supports_reasoning_effort: bool
    supports_prompt_cache: bool
    supports_stop_words: bool


def normalize_model_name(model: str | None) -> str:
    """Lowercase and trim; keep the part after the last ``/`` without a ``:tag``; drop ``-gguf``.
    No model (``None``) gives ``''``."""
    name = (model or "").strip().lower()
    if "/" in name:
        name = name.rsplit("/", 1)[1].split(":", 1)[0]
    if name.endswith("-gguf"):
        name = name[: -len("-gguf")]
    return name


def model_matches(model: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True if a pattern matches: patterns with ``/`` see the full name, others the basename."""
    full = model.strip().lower()
    base = normalize_model_name(model)
    for pattern in patterns:
        pattern = pattern.lower()
        target = full if "/" in pattern else base
        if fnmatchcase(target, pattern):
            return True
    return False


def get_features(model: str) -> ModelFeatures:
    return ModelFeatures(
        supports_function_calling=model_matches(model, FUNCTION_CALLING_PATTERNS),
        supports_reasoning_effort=model_matches(model, REASONING_EFFORT_PATTERNS),
        supports_prompt_cache=model_matches(model, PROMPT_CACHE_PATTERNS),
        supports_stop_words=not model_matches(model, NO_STOP_WORDS_PATTERNS),
    )
