"""Capability detection from model names (agent spec §7.4)."""

from __future__ import annotations

import pytest

from openhands.llm.model_features import get_features, model_matches, normalize_model_name


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("  GPT-4o ", "gpt-4o"),
        ("openrouter/anthropic/claude-sonnet-4", "claude-sonnet-4"),
        ("ollama/qwen3-coder:30b", "qwen3-coder"),
        ("hf/Some-Model-GGUF", "some-model"),
        ("litellm_proxy/o3", "o3"),
    ],
)
def test_normalize(raw: str, normalized: str) -> None:
    assert normalize_model_name(raw) == normalized


def test_normalize_no_model() -> None:
    assert normalize_model_name(None) == ""
    assert normalize_model_name("") == ""
    assert normalize_model_name("openrouter/Anthropic/Claude-3:latest") == "claude-3"


def test_patterns_with_slash_match_the_full_name() -> None:
    assert model_matches("openrouter/anthropic/claude-x", ["openrouter/anthropic/*"])
    assert not model_matches("anthropic/claude-x", ["openrouter/anthropic/*"])
    assert model_matches("anthropic/claude-x", ["claude-*"])


@pytest.mark.parametrize(
    ("model", "fc", "reasoning", "cache", "stop"),
    [
        ("anthropic/claude-sonnet-4-20250514", True, False, True, True),
        ("claude-sonnet-4-5-20250929", True, True, True, True),
        ("claude-3-5-haiku-20241022", True, False, True, True),
        ("claude-3-haiku-20240307", False, False, True, True),
        ("openai/gpt-4o-mini", True, False, False, True),
        ("gpt-4.1", True, False, False, True),
        ("gpt-4.1-mini", False, False, False, True),
        ("gpt-5-2025-08-07", True, True, False, True),
        ("o1", False, True, False, False),
        ("o1-2024-12-17", True, True, False, False),
        ("o3-mini", True, True, False, True),
        ("gemini/gemini-2.5-pro", True, True, False, True),
        ("gemini-2.5-flash", False, True, False, True),
        ("deepseek/deepseek-chat", True, False, False, True),
        ("deepseek-r1-0528:free", False, True, False, False),
        ("xai/grok-4-0709", False, False, False, False),
        ("groq/kimi-k2-instruct", True, False, False, True),
        ("openai/test-model", False, False, False, True),
    ],
)
def test_feature_table(model: str, fc: bool, reasoning: bool, cache: bool, stop: bool) -> None:
    features = get_features(model)
    assert features.supports_function_calling is fc
    assert features.supports_reasoning_effort is reasoning
    assert features.supports_prompt_cache is cache
    assert features.supports_stop_words is stop
