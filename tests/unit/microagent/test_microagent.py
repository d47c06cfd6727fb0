"""Microagent files: frontmatter parsing, type inference, triggers, directory loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.exceptions import MicroagentValidationError
from openhands.microagent import (
    BaseMicroagent,
    KnowledgeMicroagent,
    MicroagentType,
    RepoMicroagent,
    TaskMicroagent,
    load_microagents_from_dir,
)
from openhands.microagent.microagent import ASK_FOR_INPUTS

REPO_ROOT = Path(__file__).resolve().parents[3]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_triggers_make_a_knowledge_microagent(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "k.md",
        "---\nname: kube\ntriggers:\n- Kubernetes\n- kubectl\n---\nUse kubectl carefully.\n",
    )
    agent = BaseMicroagent.load(path)
    assert isinstance(agent, KnowledgeMicroagent)
    assert not isinstance(agent, TaskMicroagent)
    assert agent.type == MicroagentType.KNOWLEDGE
    assert agent.name == "kube"
    assert agent.triggers == ["Kubernetes", "kubectl"]
    assert agent.content == "Use kubectl carefully."
    assert agent.source == str(path)


def test_no_triggers_and_no_frontmatter_make_a_repo_microagent(tmp_path: Path) -> None:
    agent = BaseMicroagent.load(_write(tmp_path / "plain.md", "Run make test before pushing."))
    assert isinstance(agent, RepoMicroagent)
    assert agent.type == MicroagentType.REPO_KNOWLEDGE
    assert agent.name == "default"
    assert agent.metadata.version == "1.0.0"
    assert agent.metadata.agent == "CodeActAgent"


def test_declared_type_is_not_trusted(tmp_path: Path) -> None:
    # Says "knowledge" but has no triggers: inferred as repo.
    path = _write(tmp_path / "x.md", "---\nname: x\ntype: knowledge\n---\nAlways on.")
    assert isinstance(BaseMicroagent.load(path), RepoMicroagent)


def test_invalid_declared_type_is_a_validation_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "x.md", "---\nname: x\ntype: wizard\n---\nbody")
    with pytest.raises(MicroagentValidationError):
        BaseMicroagent.load(path)


def test_inputs_make_a_task_with_a_slash_trigger_and_an_input_request(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.md",
        "---\nname: bump\ninputs:\n- name: VERSION\n  description: new version\n---\n"
        "Bump to ${VERSION}.",
    )
    agent = BaseMicroagent.load(path)
    assert isinstance(agent, TaskMicroagent)
    assert agent.type == MicroagentType.TASK
    assert agent.triggers == ["/bump"]
    assert agent.inputs[0].name == "VERSION"
    assert agent.content == "Bump to ${VERSION}." + ASK_FOR_INPUTS
    assert agent.match_trigger("please /bump it") == "/bump"


def test_task_keeps_an_existing_slash_trigger_once(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.md",
        "---\nname: t\ntriggers: [/t, other]\ninputs:\n- {name: A, description: a}\n---\nx",
    )
    assert BaseMicroagent.load(path).metadata.triggers == ["/t", "other"]


def test_task_variables_are_found() -> None:
    assert TaskMicroagent.extract_variables("a ${ONE} b ${two_2} ${3bad} $PLAIN") == [
        "ONE",
        "two_2",
    ]


def test_numeric_version_becomes_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.md", "---\nname: v\nversion: 2.5\n---\nbody")
    assert BaseMicroagent.load(path).metadata.version == "2.5"


def test_match_trigger_is_case_insensitive_substring_first_in_list_order(tmp_path: Path) -> None:
    path = _write(tmp_path / "k.md", "---\nname: k\ntriggers: [Docker, compose]\n---\nx")
    agent = BaseMicroagent.load(path)
    assert isinstance(agent, KnowledgeMicroagent)
    assert agent.match_trigger("fix the DOCKER-COMPOSE file") == "Docker"
    assert agent.match_trigger("my composer.json") == "compose"
    assert agent.match_trigger("nothing relevant") is None
    assert agent.match_trigger("") is None


def test_mcp_tools_need_a_stdio_server(tmp_path: Path) -> None:
    bad = _write(
        tmp_path / "bad.md",
        "---\nname: m\nmcp_tools:\n  sse_servers:\n  - http://localhost:9000/sse\n---\nx",
    )
    with pytest.raises(MicroagentValidationError, match="stdio"):
        BaseMicroagent.load(bad)

    good = _write(
        tmp_path / "good.md",
        "---\nname: m\nmcp_tools:\n  stdio_servers:\n  - name: fetch\n    command: uvx\n"
        "    args: [mcp-server-fetch]\n---\nx",
    )
    agent = BaseMicroagent.load(good)
    assert agent.metadata.mcp_tools is not None
    assert agent.metadata.mcp_tools.stdio_servers[0].name == "fetch"


def test_content_can_be_given_instead_of_read(tmp_path: Path) -> None:
    agent = BaseMicroagent.load(tmp_path / "missing.md", file_content="---\nname: z\n---\nhi")
    assert agent.name == "z"
    assert agent.content == "hi"


def test_legacy_instructions_file_is_repo_legacy(tmp_path: Path) -> None:
    agent = BaseMicroagent.load(_write(tmp_path / ".openhands_instructions", "Use tabs."))
    assert isinstance(agent, RepoMicroagent)
    assert agent.name == "repo_legacy"
    assert agent.content == "Use tabs."


def test_subclass_rejects_a_wrong_type() -> None:
    from openhands.microagent.types import MicroagentMetadata

    with pytest.raises(ValueError):
        RepoMicroagent(
            name="x",
            content="",
            metadata=MicroagentMetadata(),
            source="x",
            type=MicroagentType.KNOWLEDGE,
        )


def test_load_dir_names_by_relative_path_and_skips_readme(tmp_path: Path) -> None:
    root = tmp_path / "repo" / ".openhands" / "microagents"
    _write(root / "README.md", "---\ntriggers: [x]\n---\nignored")
    _write(root / "repo.md", "---\nname: ignored_name\n---\nRepo rules.")
    _write(root / "tools" / "lint.md", "---\nname: lint\ntriggers: [ruff]\n---\nRun ruff.")
    _write(
        root / "tasks" / "ship.md", "---\nname: ship\ninputs:\n- {name: A, description: a}\n---\nx"
    )

    repo, knowledge = load_microagents_from_dir(root)
    assert set(repo) == {"repo"}
    assert repo["repo"].content == "Repo rules."
    assert set(knowledge) == {"tools/lint", "tasks/ship"}
    assert isinstance(knowledge["tasks/ship"], TaskMicroagent)


def test_load_dir_picks_up_third_party_files_two_levels_up(tmp_path: Path) -> None:
    repo_root = tmp_path / "repo"
    root = repo_root / ".openhands" / "microagents"
    root.mkdir(parents=True)
    _write(repo_root / ".cursorrules", "Cursor rules.")
    _write(repo_root / "agent.md", "Second choice.")
    _write(repo_root / "AGENTS.md", "First choice.")

    repo, knowledge = load_microagents_from_dir(root)
    assert knowledge == {}
    assert repo["cursorrules"].content == "Cursor rules."
    assert repo["agents"].content == "First choice."


def test_load_missing_dir_gives_nothing(tmp_path: Path) -> None:
    assert load_microagents_from_dir(tmp_path / "a" / "b" / "none") == ({}, {})


def test_one_bad_file_aborts_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "r" / ".openhands" / "microagents"
    _write(root / "good.md", "---\ntriggers: [a]\n---\nfine")
    _write(root / "bad.md", "---\ninputs: 5\n---\nbroken")
    with pytest.raises(MicroagentValidationError, match=r"bad\.md"):
        load_microagents_from_dir(root)


def test_our_global_microagents_load() -> None:
    repo, knowledge = load_microagents_from_dir(REPO_ROOT / "microagents")
    # The one repo microagent is always active: it gives every conversation the fetch tool.
    assert set(repo) == {"default-tools"}
    tools = repo["default-tools"].metadata.mcp_tools
    assert tools is not None and [s.command for s in tools.stdio_servers] == ["uvx"]
    assert tools.stdio_servers[0].args == ["mcp-server-fetch"]
    assert {"git", "github", "gitlab", "docker", "npm", "python_testing"} <= set(knowledge)
    assert isinstance(knowledge["add_tests"], TaskMicroagent)
    assert knowledge["github"].match_trigger("Open a Pull Request please") == "pull request"


def test_invalid_type_error_names_the_file_the_value_and_the_valid_types(tmp_path: Path) -> None:
    bad = tmp_path / "odd.md"
    bad.write_text("---\nname: odd\ntype: helper\n---\nbody\n")
    with pytest.raises(MicroagentValidationError) as error:
        BaseMicroagent.load(bad)
    message = str(error.value)
    assert "odd.md" in message
    assert 'Invalid "type" value: "helper"' in message
    assert 'Valid types are: "knowledge", "repo", "task"' in message
