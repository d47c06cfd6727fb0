"""Headless command-line flags (spec agent.md §9.4)."""

from __future__ import annotations

import pytest

from openhands.core.config import get_parser, parse_arguments


def test_defaults() -> None:
    args = parse_arguments([])
    assert args.config_file == "config.toml"
    assert args.task == ""
    assert args.file is None
    assert args.name == ""
    assert args.llm_config is None
    assert args.agent_cls is None
    assert args.max_iterations is None
    assert args.max_budget_per_task is None
    assert args.selected_repo is None
    assert args.replay_trajectory_path is None
    assert args.no_auto_continue is False
    assert args.directory is None
    assert args.agent_config is None
    assert args.log_level is None


def test_short_flags() -> None:
    args = parse_arguments(
        ["-t", "fix it", "-f", "task.txt", "-n", "run1", "-l", "gpt", "-c", "LocAgent",
         "-i", "5", "-b", "1.5", "-d", "/w"]
    )  # fmt: skip
    assert args.task == "fix it"
    assert args.file == "task.txt"
    assert args.name == "run1"
    assert args.llm_config == "gpt"
    assert args.agent_cls == "LocAgent"
    assert args.max_iterations == 5
    assert args.max_budget_per_task == 1.5
    assert args.directory == "/w"


def test_long_flags() -> None:
    args = parse_arguments(
        ["--config-file", "x.toml", "--task", "t", "--file", "f", "--name", "n",
         "--llm-config", "l", "--agent-cls", "A", "--max-iterations", "3",
         "--max-budget-per-task", "2", "--selected-repo", "o/r", "--no-auto-continue",
         "--replay-trajectory-path", "traj.json", "--agent-config", "ac", "--log-level", "debug"]
    )  # fmt: skip
    assert args.config_file == "x.toml"
    assert args.selected_repo == "o/r"
    assert args.no_auto_continue is True
    assert args.replay_trajectory_path == "traj.json"
    assert args.max_budget_per_task == 2.0
    assert args.log_level == "debug"


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    # `-v` is a plain flag (python-api.md §5.1); the headless main prints the version.
    from openhands.core.main import main

    assert get_parser().parse_args(["-v"]).version is True
    assert get_parser().parse_args([]).version is False
    assert main(["-v"]) == 0
    assert capsys.readouterr().out.strip().startswith("OpenHands version: ")


def test_bad_number_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(["-i", "many"])
    assert exit_info.value.code == 2
