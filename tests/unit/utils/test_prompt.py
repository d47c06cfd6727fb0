"""PromptManager: template loading and rendering (spec §4.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.events.observation import MicroagentKnowledge
from openhands.utils.prompt import (
    ConversationInstructions,
    PromptManager,
    RepositoryInfo,
    RuntimeInfo,
)

CODEACT = (
    Path(__file__).resolve().parents[3] / "openhands" / "agenthub" / "codeact_agent" / "prompts"
)


def test_missing_template_is_reported(tmp_path: Path) -> None:
    (tmp_path / "system_prompt.j2").write_text("hi")
    with pytest.raises(FileNotFoundError, match=r"Prompt file .*user_prompt\.j2 not found"):
        PromptManager(str(tmp_path))


def test_system_prompt_variants() -> None:
    base = PromptManager(str(CODEACT)).get_system_message(cli_mode=False)
    assert base == base.strip()
    for tag in (
        "<ROLE>",
        "<EFFICIENCY>",
        "<FILE_SYSTEM_GUIDELINES>",
        "<CODE_QUALITY>",
        "<VERSION_CONTROL>",
        "<PULL_REQUESTS>",
        "<PROBLEM_SOLVING_WORKFLOW>",
        "<SECURITY>",
        "<SECURITY_RISK_ASSESSMENT>",
        "<EXTERNAL_SERVICES>",
        "<ENVIRONMENT_SETUP>",
        "<TROUBLESHOOTING>",
        "<DOCUMENTATION>",
        "<PROCESS_MANAGEMENT>",
    ):
        assert tag in base
    assert "openhands@all-hands.dev" in base
    assert "<TASK_MANAGEMENT>" not in base
    cli = PromptManager(str(CODEACT)).get_system_message(cli_mode=True)
    assert cli != base
    for name, tag in (
        ("system_prompt_long_horizon.j2", "<TASK_TRACKING_PERSISTENCE>"),
        ("system_prompt_interactive.j2", "<INTERACTION_RULES>"),
        ("system_prompt_tech_philosophy.j2", "<TECHNICAL_PHILOSOPHY>"),
    ):
        text = PromptManager(str(CODEACT), name).get_system_message()
        assert tag in text and text.startswith(base[:200])
    assert PromptManager(str(CODEACT)).get_example_user_message() == ""


def test_workspace_context_sections() -> None:
    manager = PromptManager(str(CODEACT))
    text = manager.build_workspace_context(
        RepositoryInfo("acme/app", "/workspace/app", "dev"),
        RuntimeInfo(
            date="2025-03-04",
            available_hosts={"http://host:5000": 5000},
            additional_agent_instructions="Use port 5000.",
            custom_secrets_descriptions={"DB_URL": "the database"},
            working_dir="/workspace",
        ),
        ConversationInstructions("Be brief."),
        repo_instructions="Run make check.",
    )
    assert text.startswith("<REPOSITORY_INFO>")
    assert '"dev"' in text
    assert "<REPOSITORY_INSTRUCTIONS>\nRun make check.\n</REPOSITORY_INSTRUCTIONS>" in text
    assert "* http://host:5000 (port 5000)" in text
    assert "0.0.0.0" in text
    assert "<CUSTOM_SECRETS>" in text and "* $DB_URL: the database" in text
    assert "Today's date is 2025-03-04 (UTC)." in text
    assert "<CONVERSATION_INSTRUCTIONS>\nBe brief.\n</CONVERSATION_INSTRUCTIONS>" in text

    # Conversation instructions only appear inside the runtime block.
    bare = manager.build_workspace_context(None, None, ConversationInstructions("x"), "")
    assert bare == ""


def test_microagent_info() -> None:
    text = PromptManager(str(CODEACT)).build_microagent_info(
        [MicroagentKnowledge("git", "commit", "Git tips."), MicroagentKnowledge("npm", "npm", "N")]
    )
    assert text.count("<EXTRA_INFO>") == 2
    assert '"commit"' in text and "Git tips." in text


def test_a_subclass_can_load_more_templates(tmp_path: Path) -> None:
    for name in ("system_prompt.j2", "user_prompt.j2", "additional_info.j2", "microagent_info.j2"):
        (tmp_path / name).write_text("")
    (tmp_path / "base.j2").write_text("<BASE>{{ who }}</BASE>")
    (tmp_path / "extra.j2").write_text('{% include "base.j2" %} and more')

    class WithExtra(PromptManager):
        def extra(self, who: str) -> str:
            return self._load_template("extra.j2").render(who=who)

    manager = WithExtra(str(tmp_path))
    assert manager.extra("me") == "<BASE>me</BASE> and more"
    assert manager.env.loader is not None
    with pytest.raises(FileNotFoundError, match=r"missing\.j2"):
        manager._load_template("missing.j2")
