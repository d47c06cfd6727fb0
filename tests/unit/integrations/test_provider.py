"""Provider data types."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.integrations.service_types import ProviderType as ServiceProviderType


def test_provider_type_values() -> None:
    assert ProviderType is ServiceProviderType
    assert [p.value for p in ProviderType] == ["github", "gitlab", "bitbucket", "enterprise_sso"]
    assert ProviderType("gitlab") is ProviderType.GITLAB
    assert str(ProviderType.GITHUB) == "github"


def test_provider_token_from_values() -> None:
    from_dict = ProviderToken.from_value({"token": "t", "host": "h", "user_id": "u", "x": 1})
    assert from_dict == ProviderToken(token=SecretStr("t"), host="h", user_id="u")
    assert ProviderToken.from_value("bare").token == SecretStr("bare")
    assert ProviderToken.from_value(None) == ProviderToken()
    assert ProviderToken.from_value(from_dict) is from_dict
    with pytest.raises(TypeError):
        ProviderToken.from_value(42)  # type: ignore[arg-type]


def test_provider_token_has_token() -> None:
    assert ProviderToken(token=SecretStr("t")).has_token
    assert not ProviderToken(token=SecretStr("")).has_token
    assert not ProviderToken().has_token


def test_secret_values_stay_out_of_repr_and_models_are_frozen() -> None:
    token = ProviderToken(token=SecretStr("ghp_secret"))
    secret = CustomSecret(secret=SecretStr("pw"), description="d")
    assert "ghp_secret" not in repr(token)
    assert "pw" not in repr(secret).replace("description", "")
    with pytest.raises(ValidationError):
        token.host = "other"  # type: ignore[misc]


def test_custom_secret_from_values() -> None:
    assert CustomSecret.from_value("v") == CustomSecret(secret=SecretStr("v"))
    assert CustomSecret.from_value({"secret": "v", "description": None}).description == ""
    assert CustomSecret.from_value({"secret": "v", "description": "d"}).description == "d"
    with pytest.raises(TypeError):
        CustomSecret.from_value(3)  # type: ignore[arg-type]
