"""Settings the benches store before starting conversations: CodeActAgent on the scripted
OpenAI-compatible LLM of ``tests.support.scripted_llm`` (``base_url``), no condenser, so
that every figure is server, runtime and agent start-up rather than model time."""

from __future__ import annotations


def scripted_llm_settings(base_url: str) -> dict[str, object]:
    return {
        "llm_model": "openai/test-model",
        "llm_base_url": base_url,
        "llm_api_key": "bench",
        "agent": "CodeActAgent",
        "enable_default_condenser": False,
    }
