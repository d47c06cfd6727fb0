"""Git provider tokens between `get_provider_tokens` (ProviderType → ProviderToken, the
reference's shape) and the runtime (`{"github": "<token>"}`): converted in one place, so a
headless run's GITHUB_TOKEN reaches the sandbox as a string."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.core.setup import (
    create_runtime,
    get_provider_tokens,
    provider_token_strings,
    provider_tokens_by_type,
)
from openhands.integrations.provider import ProviderToken
from openhands.integrations.service_types import ProviderType


@pytest.fixture
def token_env(monkeypatch: pytest.MonkeyPatch) -> str:
    for name in ("GITHUB_TOKEN", "GITLAB_TOKEN", "BITBUCKET_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_headless_secret")
    return "ghp_headless_secret"


def test_both_shapes_convert_to_the_runtime_strings() -> None:
    by_type = MappingProxyType(
        {
            ProviderType.GITHUB: ProviderToken(token=SecretStr("gh"), host="ghe.example"),
            ProviderType.GITLAB: ProviderToken(token=SecretStr("")),  # no token: left out
        }
    )
    assert provider_token_strings(by_type) == {"github": "gh"}
    assert provider_token_strings({"gitlab": "gl", "github": ""}) == {"gitlab": "gl"}
    assert provider_token_strings(None) == {}

    # Back to the reference's shape: a ProviderToken keeps its host; strings gain none.
    assert provider_tokens_by_type(by_type)[ProviderType.GITHUB].host == "ghe.example"
    back = provider_tokens_by_type({"github": "gh", "no-such-forge": "x"})
    assert isinstance(back, MappingProxyType)
    assert list(back) == [ProviderType.GITHUB]
    token = back[ProviderType.GITHUB].token
    assert token is not None and token.get_secret_value() == "gh"


def test_environment_tokens_reach_the_runtime_as_strings(token_env: str, tmp_path: Path) -> None:
    config = OpenHandsConfig(runtime="cli", workspace_base=str(tmp_path))
    runtime = create_runtime(config, sid="tokens", git_provider_tokens=get_provider_tokens())
    try:
        assert runtime.git_provider_tokens == {"github": token_env}
        # What the sandbox's shell is given (runtime.md §10.1 step 3).
        assert runtime.initial_env_vars["GITHUB_TOKEN"] == token_env
    finally:
        runtime.close()
        runtime.event_stream.close()
