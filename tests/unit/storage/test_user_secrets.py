"""UserSecrets: the secrets.json shape and the helpers behind the secrets routes."""

from __future__ import annotations

import copy
import json
import pickle
from types import MappingProxyType

import pytest
from pydantic import SecretStr, ValidationError

from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.storage.data_models.settings import Settings
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


# --- read-only maps, lenient reading, copies --------------------------------------------------


def _assert_read_only(secrets: UserSecrets) -> None:
    assert isinstance(secrets.provider_tokens, MappingProxyType)
    assert isinstance(secrets.custom_secrets, MappingProxyType)
    with pytest.raises(TypeError):
        secrets.provider_tokens[ProviderType.GITLAB] = ProviderToken(token=SecretStr("x"))  # type: ignore[index]
    with pytest.raises(TypeError):
        secrets.custom_secrets["NEW"] = CustomSecret(secret=SecretStr("x"))  # type: ignore[index]


def test_maps_are_read_only_however_the_secrets_are_made() -> None:
    loaded = UserSecrets.model_validate(ON_DISK)
    _assert_read_only(loaded)
    _assert_read_only(UserSecrets())
    _assert_read_only(loaded.with_custom_secret("OTHER", "v"))
    _assert_read_only(loaded.with_provider_tokens({ProviderType.GITHUB: ProviderToken()}))
    # pydantic's model_copy does not validate; ours still wraps a plain dict it is given
    copied = loaded.model_copy(update={"custom_secrets": {"X": CustomSecret()}})
    _assert_read_only(copied)
    assert list(copied.custom_secrets) == ["X"]


def test_missing_null_or_odd_maps_read_as_empty(caplog: pytest.LogCaptureFixture) -> None:
    for stored in (
        {},
        {"provider_tokens": None, "custom_secrets": None},
        {"provider_tokens": ["github"], "custom_secrets": "NAME=value"},
    ):
        secrets = UserSecrets.model_validate(stored)
        assert dict(secrets.provider_tokens) == {}
        assert dict(secrets.custom_secrets) == {}
    assert "Ignoring provider_tokens stored as list" in caplog.text
    assert "Ignoring custom_secrets stored as str" in caplog.text


def test_odd_entries_are_skipped_without_logging_their_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secrets = UserSecrets.model_validate(
        {
            "provider_tokens": {
                "github": None,
                "gitlab": 123,
                "bitbucket": {"token": 987654321},  # not a string: no token can be built
                "enterprise_sso": {"token": "ok-token"},
                "nowhere": {"token": "x"},
            },
            "custom_secrets": {
                "NONE": None,
                "NUMBER": 5,
                "LIST": ["s3cr3t-in-a-list"],
                "GOOD": {"secret": "fine", "description": None},
            },
        }
    )
    assert list(secrets.provider_tokens) == [ProviderType.ENTERPRISE_SSO]
    assert list(secrets.custom_secrets) == ["GOOD"]
    assert secrets.custom_secrets["GOOD"].description == ""
    assert "987654321" not in caplog.text
    assert "s3cr3t-in-a-list" not in caplog.text
    assert "unknown git provider 'nowhere'" in caplog.text
    assert "Ignoring the custom secret 'LIST'" in caplog.text


def test_a_non_object_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="valid dictionary or instance of UserSecrets"):
        UserSecrets.model_validate(["github"])


class _Info:
    """What the serializers read from pydantic's SerializationInfo."""

    def __init__(self, context: dict[str, bool] | None) -> None:
        self.context = context


def test_serializers_by_their_reference_names() -> None:
    secrets = UserSecrets.model_validate(ON_DISK)
    exposed = _Info(EXPOSE)
    masked = _Info(None)
    tokens = secrets.provider_tokens_serializer(secrets.provider_tokens, exposed)  # type: ignore[arg-type]
    assert tokens == ON_DISK["provider_tokens"]
    customs = secrets.custom_secrets_serializer(secrets.custom_secrets, masked)  # type: ignore[arg-type]
    assert customs["DB_PASSWORD"] == {"secret": "**********", "description": "staging db"}


def test_deep_copies_work_and_stay_read_only() -> None:
    secrets = UserSecrets.model_validate(ON_DISK)
    copied = copy.deepcopy(secrets)
    assert copied == secrets
    assert copied.custom_secrets["DB_PASSWORD"] is not secrets.custom_secrets["DB_PASSWORD"]
    _assert_read_only(copied)

    settings = Settings(llm_model="m", secrets_store=secrets)
    settings_copy = settings.model_copy(deep=True)
    assert settings_copy == settings
    assert settings_copy.secrets_store.provider_tokens == secrets.provider_tokens
    _assert_read_only(settings_copy.secrets_store)


def test_pickles_keep_the_maps_read_only() -> None:
    settings = Settings(llm_model="m", secrets_store=UserSecrets.model_validate(ON_DISK))
    restored = pickle.loads(pickle.dumps(settings))
    assert restored == settings
    _assert_read_only(restored.secrets_store)
