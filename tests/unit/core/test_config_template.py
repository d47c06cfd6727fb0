"""config.template.toml documents every key and, copied as is, changes nothing."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from openhands.core.config import (
    AgentConfig,
    CLIConfig,
    KubernetesConfig,
    LLMConfig,
    MCPConfig,
    ModelRoutingConfig,
    OpenHandsConfig,
    SandboxConfig,
    SecurityConfig,
    load_from_toml,
)
from openhands.core.config.condenser_config import CONDENSER_CONFIG_TYPES

TEMPLATE = Path(__file__).resolve().parents[3] / "config.template.toml"
_KEY_LINE = re.compile(r"^#? ?([a-z_][a-z0-9_]*)\s*=")
_HEADER = re.compile(r"^#? ?\[([^\]]+)\]\s*$")
_CORE_SUBSECTIONS = {
    "llms",
    "agents",
    "sandbox",
    "security",
    "mcp",
    "kubernetes",
    "cli",
    "extended",
}
_SECTION_MODELS: dict[str, type[BaseModel]] = {
    "llm": LLMConfig,
    "agent": AgentConfig,
    "sandbox": SandboxConfig,
    "security": SecurityConfig,
    "mcp": MCPConfig,
    "kubernetes": KubernetesConfig,
    "cli": CLIConfig,
    "model_routing": ModelRoutingConfig,
}
_EXPORTED_ENV = (
    "OR_SITE_URL",
    "OR_APP_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION_NAME",
)


@pytest.fixture(autouse=True)
def _restore_exported_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _EXPORTED_ENV:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


def documented_keys() -> dict[str, set[str]]:
    """Keys per top-level section, commented or not (named sub-sections are skipped)."""
    keys: dict[str, set[str]] = {}
    section = None
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        header = _HEADER.match(line)
        if header:
            name = header.group(1)
            section = None if "." in name else name
            continue
        key = _KEY_LINE.match(line)
        if key and section is not None:
            keys.setdefault(section, set()).add(key.group(1))
    return keys


def uncommented_template() -> str:
    lines = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        if _KEY_LINE.match(line) or _HEADER.match(line):
            line = re.sub(r"^# ?", "", line)
        lines.append(line)
    return "\n".join(lines)


def test_every_model_field_is_documented() -> None:
    keys = documented_keys()
    expected_core = set(OpenHandsConfig.model_fields) - _CORE_SUBSECTIONS
    assert expected_core <= keys["core"], expected_core - keys["core"]
    for section, model in _SECTION_MODELS.items():
        missing = set(model.model_fields) - keys.get(section, set())
        assert not missing, f"[{section}] lacks {sorted(missing)}"
    condenser_fields = {f for m in CONDENSER_CONFIG_TYPES.values() for f in m.model_fields}
    assert condenser_fields <= keys["condenser"], condenser_fields - keys["condenser"]


def test_no_key_is_documented_that_does_not_exist() -> None:
    keys = documented_keys()
    assert keys["core"] <= set(OpenHandsConfig.model_fields) - _CORE_SUBSECTIONS
    for section, model in _SECTION_MODELS.items():
        unknown = keys.get(section, set()) - set(model.model_fields)
        assert not unknown, f"[{section}] documents unknown {sorted(unknown)}"


def test_template_as_is_changes_nothing(tmp_path: Path) -> None:
    cfg = OpenHandsConfig()
    load_from_toml(cfg, str(TEMPLATE))
    without_file = OpenHandsConfig()
    load_from_toml(without_file, str(tmp_path / "absent.toml"))
    for config in (cfg, without_file):
        config.get_llm_config()
        config.get_agent_config()
    assert cfg.model_dump() == without_file.model_dump()


def test_uncommented_template_is_valid(tmp_path: Path) -> None:
    text = uncommented_template()
    data = tomllib.loads(text)  # no duplicate keys, valid syntax
    OpenHandsConfig.model_validate(data["core"])
    for section, model in _SECTION_MODELS.items():
        scalars = {
            k: v
            for k, v in data[section].items()
            if not (isinstance(v, dict) and k not in model.model_fields)
        }
        model.model_validate(scalars)
    assert data["llm"]["gpt4o"]["model"] == "gpt-4o"
    # The whole file also loads through the normal path.
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    cfg = OpenHandsConfig()
    load_from_toml(cfg, str(path))
    assert cfg.get_llm_config("gpt4o").model == "gpt-4o"
    assert cfg.get_llm_config("gpt4o").timeout == 120  # inherited from [llm]
    assert cfg.max_budget_per_task == 5.0
    assert cfg.sandbox.vscode_port == 41234
    assert os.path.isabs(cfg.get_llm_config().log_completions_folder)
