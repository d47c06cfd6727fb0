"""Apply environment variables to a config (they win over config.toml).

Names are PREFIX + FIELD in upper case. Root fields have no prefix; a nested model uses its
own field name as the prefix (`SANDBOX_TIMEOUT`, and inside the default agent config,
`CONDENSER_*`). The default LLM config is read with `LLM_`, the default agent with `AGENT_`.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, RootModel, SecretStr, TypeAdapter, ValidationError

from openhands.core.config.llm_config import LLMConfig
from openhands.core.config.openhands_config import OpenHandsConfig
from openhands.core.logger import openhands_logger

TRUE_STRINGS = frozenset({"true", "1"})


def _strip_annotated(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _unwrap_optional(annotation: Any) -> Any:
    """`X | None` → X (the first non-None member of a union)."""
    annotation = _strip_annotated(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return _strip_annotated(members[0])
        return annotation
    return annotation


def cast_env_value(raw: str, annotation: Any) -> Any:
    """Turn the text of an env var into a value for a field of type `annotation`.

    bool: true iff lowercase in {true, 1}. dict/list: `ast.literal_eval`, then validated
    (so dicts become models in model lists). Other types: their constructor.
    """
    target = _unwrap_optional(annotation)
    if target is bool:
        return raw.strip().lower() in TRUE_STRINGS
    if target in (dict, list) or get_origin(target) in (dict, list):
        return TypeAdapter(target).validate_python(ast.literal_eval(raw))
    if target in (int, float, str) or target is SecretStr:
        return target(raw)
    if get_origin(target) is Literal:
        for allowed in get_args(target):
            if str(allowed) == raw.strip():
                return allowed
        raise ValueError(f"{raw!r} is not one of {get_args(target)}")
    return TypeAdapter(annotation).validate_python(raw)


def apply_env_to_model(model: BaseModel, env: Mapping[str, str], prefix: str = "") -> None:
    """Set every field of `model` whose env var is present and non-empty (recursively)."""
    changed: set[str] = set()
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, RootModel):
            continue  # free-form sections (`extended`) have no env vars
        if isinstance(value, BaseModel):
            apply_env_to_model(value, env, prefix=f"{name.upper()}_")
            continue
        env_name = f"{prefix}{name}".upper()
        raw = env.get(env_name)
        if not raw:
            continue
        try:
            setattr(model, name, cast_env_value(raw, field.annotation))
            changed.add(name)
        except (ValueError, TypeError, SyntaxError, ValidationError) as exc:
            openhands_logger.error("Cannot use env var %s for %r: %s", env_name, name, exc)
    if changed and isinstance(model, LLMConfig):
        model.refresh_derived_defaults()


def load_from_env(cfg: OpenHandsConfig, env: Mapping[str, str]) -> None:
    """Root fields, then the default LLM config (`LLM_*`), then the default agent (`AGENT_*`)."""
    apply_env_to_model(cfg, env)
    apply_env_to_model(cfg.get_llm_config(), env, prefix="LLM_")
    apply_env_to_model(cfg.get_agent_config(), env, prefix="AGENT_")
