"""Small shared pieces of the config package: defaults, the secret field type, helpers."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, PlainSerializer, SecretStr, SerializationInfo

OH_DEFAULT_AGENT = "CodeActAgent"
OH_MAX_ITERATIONS = 500
DEFAULT_CONFIG_FILE = "config.toml"

# Serialization context key that reveals secrets in JSON dumps:
# ``model.model_dump(mode="json", context={EXPOSE_SECRETS: True})``.
EXPOSE_SECRETS = "expose_secrets"


def _serialize_secret(value: SecretStr, info: SerializationInfo) -> str:
    if info.context and info.context.get(EXPOSE_SECRETS):
        return value.get_secret_value()
    return str(value)


# A SecretStr that stays masked in repr/str/JSON unless the dump context asks otherwise.
Secret = Annotated[SecretStr, PlainSerializer(_serialize_secret, return_type=str, when_used="json")]


def reveal(value: SecretStr | str | None) -> str | None:
    """The plain text of a secret (or of a str), None for None."""
    if value is None:
        return None
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def model_defaults_to_dict(model: BaseModel) -> dict[str, Any]:
    """Describe each field of `model` as {type, default, description}, nesting sub-models."""
    result: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            result[name] = model_defaults_to_dict(value)
            continue
        result[name] = {
            "type": getattr(field.annotation, "__name__", str(field.annotation)),
            "default": field.get_default(call_default_factory=True),
            "description": field.description,
        }
    return result
