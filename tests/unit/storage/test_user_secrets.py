"""UserSecrets: the secrets.json shape and the helpers behind the secrets routes."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.storage.data_models.user_secrets import (
    CustomSecretExistsError,
    CustomSecretNotFoundError,
    Secrets,
    UserSecrets,
)

EXPOSE = {"expose_secrets": True}

ON_DISK = {
    "provider_tokens": {
        "github": {"token": "ghp_abc", "host": "github.com", "user_id": None},
        "gitlab": {"token": "glpat-1", "host": None, "user_id": "42"},
    },
    "custom_secrets": {
        "DB_PASSWORD": {"secret": "hunter2", "description": "staging db"},
        "EMPTY_DESC": {"secret": "v", "description": ""},
    },
}


def test_disk_shape_round_trips_exactly() -> None:
    secrets = UserSecrets.model_validate(ON_DISK)
    text = secrets.model_dump_json(context=EXPOSE)
    assert json.loads(text) == ON_DISK
    assert list(json.loads(text)["provider_tokens"]["github"]) == ["token", "host", "user_id"]
    assert UserSecrets.model_validate_json(text) == secrets


def test_values_are_masked_in_repr_and_plain_dumps() -> None:
    secrets = UserSecrets.model_validate(ON_DISK)
    for text in (repr(secrets), str(secrets), secrets.model_dump_json()):
        assert "ghp_abc" not in text
        assert "hunter2" not in text
    masked = json.loads(secrets.model_dump_json())
    assert masked["provider_tokens"]["github"]["token"] == "**********"
    assert masked["custom_secrets"]["DB_PASSWORD"]["secret"] == "**********"


def test_entries_without_token_and_unknown_providers_are_dropped_on_load() -> None:
    secrets = UserSecrets.model_validate(
        {
            "provider_tokens": {
                "github": {"token": "", "host": "github.com"},
                "bitbucket": {"token": None, "user_id": "u"},
                "gitlab": "bare-token-string",
                "azure_devops": {"token": "from-a-newer-version"},
            }
        }
    )
    assert list(secrets.provider_tokens) == [ProviderType.GITLAB]
    assert secrets.provider_tokens[ProviderType.GITLAB].token == SecretStr("bare-token-string")
    assert secrets.custom_secrets == {}


def test_custom_secret_as_bare_string() -> None:
    secrets = UserSecrets.model_validate({"custom_secrets": {"A": "value"}})
    assert secrets.custom_secrets["A"] == CustomSecret(secret=SecretStr("value"), description="")


def test_is_immutable() -> None:
    secrets = UserSecrets()
    with pytest.raises(ValueError):
        secrets.custom_secrets = {}  # type: ignore[misc]


def test_secrets_alias() -> None:
    assert Secrets is UserSecrets


# --- custom secret helpers ----------------------------------------------------------------


def test_add_custom_secret() -> None:
    original = UserSecrets()
    added = original.with_custom_secret("API", "v1", "desc")
    assert original.custom_secrets == {}
    assert added.get_env_vars() == {"API": "v1"}
    assert added.get_custom_secrets_descriptions() == {"API": "desc"}
    with pytest.raises(CustomSecretExistsError, match="Secret API already exists"):
        added.with_custom_secret("API", "v2")


def test_rename_keeps_value_and_position() -> None:
    secrets = (
        UserSecrets()
        .with_custom_secret("A", "a-value", "first")
        .with_custom_secret("B", "b-value", "second")
        .with_custom_secret("C", "c-value")
    )
    renamed = secrets.with_renamed_custom_secret("B", "B2", "new description")
    assert list(renamed.custom_secrets) == ["A", "B2", "C"]
    assert renamed.get_env_vars()["B2"] == "b-value"
    assert renamed.custom_secrets["B2"].description == "new description"
    kept = secrets.with_renamed_custom_secret("A", "A")
    assert kept.custom_secrets["A"].description == "first"
    with pytest.raises(CustomSecretExistsError):
        secrets.with_renamed_custom_secret("A", "C")
    with pytest.raises(CustomSecretNotFoundError, match="Secret with ID Z not found"):
        secrets.with_renamed_custom_secret("Z", "Y")


def test_remove_custom_secret() -> None:
    secrets = UserSecrets().with_custom_secret("A", "1").with_custom_secret("B", "2")
    assert list(secrets.without_custom_secret("A").custom_secrets) == ["B"]
    with pytest.raises(CustomSecretNotFoundError):
        secrets.without_custom_secret("nope")


# --- provider token helpers ---------------------------------------------------------------


def test_provider_token_merge() -> None:
    stored = UserSecrets.model_validate(ON_DISK)
    merged = stored.with_provider_tokens(
        {
            ProviderType.GITHUB: ProviderToken(token=None, host="ghe.example.com"),
            ProviderType.BITBUCKET: ProviderToken(token=SecretStr("bb-new")),
        }
    )
    github = merged.provider_tokens[ProviderType.GITHUB]
    assert github.token == SecretStr("ghp_abc")  # empty incoming token keeps the stored one
    assert github.host == "ghe.example.com"  # ... but takes the new host
    assert ProviderType.GITLAB not in merged.provider_tokens  # the map is replaced
    assert merged.provider_tokens[ProviderType.BITBUCKET].token == SecretStr("bb-new")
    assert merged.custom_secrets == stored.custom_secrets


def test_provider_hosts_and_unset() -> None:
    secrets = UserSecrets.model_validate(ON_DISK)
    assert secrets.provider_hosts() == {"github": "github.com", "gitlab": None}
    cleared = secrets.without_provider_tokens()
    assert cleared.provider_hosts() == {}
    assert cleared.custom_secrets == secrets.custom_secrets
    with_user_only = UserSecrets(
        provider_tokens={ProviderType.GITHUB: ProviderToken(user_id="7", host="github.com")}
    )
    assert with_user_only.provider_hosts() == {"github": "github.com"}
    # ... but a token-less entry is never written.
    assert json.loads(with_user_only.model_dump_json(context=EXPOSE))["provider_tokens"] == {}
