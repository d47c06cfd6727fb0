"""Small shared pieces of the config package: defaults, the secret field type, helpers."""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, PlainSerializer, SecretStr, SerializationInfo
from pydantic.fields import FieldInfo

# Defined with the command-line parsers, which must not import this package.
from openhands.core.arguments import DEFAULT_CONFIG_FILE as DEFAULT_CONFIG_FILE

OH_DEFAULT_AGENT = "CodeActAgent"
OH_MAX_ITERATIONS = 500

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


def get_field_info(field: FieldInfo) -> dict[str, Any]:
    """``{'type', 'optional', 'default'}`` of a model field; ``X | None`` is type X, optional."""
    annotation = _strip_annotated(field.annotation)
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        optional = len(members) < len(get_args(annotation))
        if optional and len(members) == 1:
            annotation = _strip_annotated(members[0])
    type_name = getattr(annotation, "__name__", None) or str(annotation)
    return {
        "type": type_name.lower(),
        "optional": optional,
        "default": field.get_default(call_default_factory=True),
    }


def _strip_annotated(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def model_defaults_to_dict(model: BaseModel) -> dict[str, Any]:
    """`get_field_info` of each field of `model`; a field holding a model is described by
    a nested dict of its own fields."""
    result: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            result[name] = model_defaults_to_dict(value)
        else:
            result[name] = get_field_info(field)
    return result
