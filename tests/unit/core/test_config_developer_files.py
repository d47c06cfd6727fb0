"""OPENHANDS_TEST=1 keeps a developer's own config files and LLM variables out of tests
(openhands/core/config/developer_files.py, tests/conftest.py)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from openhands.core.config import developer_files
from openhands.core.config.developer_files import hidden_from_tests, is_developer_file
from openhands.core.config.toml_loader import get_llm_config_arg, read_toml
from openhands.core.config.utils import load_openhands_config

REPO_ROOT = Path(__file__).resolve().parents[3]
ACCOUNT_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()


def test_which_files_are_the_developers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert is_developer_file(REPO_ROOT / "config.toml")
    assert is_developer_file(REPO_ROOT / ".env")
    assert is_developer_file(REPO_ROOT.parent / ".env")  # a folder above the checkout
    assert is_developer_file(ACCOUNT_HOME / ".openhands" / "config.toml")
    assert is_developer_file(ACCOUNT_HOME / ".env")
    # The checkout's other files, and everything a test makes, are not.
    assert not is_developer_file(REPO_ROOT / "config.template.toml")
    assert not is_developer_file(REPO_ROOT / "tests" / "config.toml")
    assert not is_developer_file(tmp_path / "config.toml")
    # A test's temporary HOME is the test's own, not the developer's.
    monkeypatch.setenv("HOME", str(tmp_path))
    assert not is_developer_file("~/.openhands/config.toml")


@pytest.fixture
def fake_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with the developer's config.toml and .env, as the working directory."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "config.toml").write_text("[core]\nmax_iterations = 12\n")
    (checkout / ".env").write_text("MAX_BUDGET_PER_TASK=3.5\n")
    monkeypatch.setattr(developer_files, "_checkout_dirs", lambda: frozenset({checkout}))
    monkeypatch.chdir(checkout)
    # Recorded, so that what load_dotenv puts in os.environ is removed after the test.
    monkeypatch.setenv("MAX_BUDGET_PER_TASK", "")
    monkeypatch.delenv("MAX_BUDGET_PER_TASK")
    return checkout


def test_under_the_flag_the_checkouts_files_are_not_read(
    fake_checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENHANDS_TEST", "1")
    config = load_openhands_config()
    assert config.max_iterations != 12
    assert config.max_budget_per_task != 3.5
    assert "MAX_BUDGET_PER_TASK" not in os.environ


def test_without_the_flag_the_same_files_are_read(
    fake_checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENHANDS_TEST", "0")
    config = load_openhands_config()
    assert config.max_iterations == 12
    assert config.max_budget_per_task == 3.5


def test_the_accounts_openhands_folder_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "account-home"
    (home / ".openhands").mkdir(parents=True)
    personal = home / ".openhands" / "config.toml"
    personal.write_text('[llm.personal]\nmodel = "my-model"\napi_key = "sk-developer"\n')
    monkeypatch.setattr(developer_files, "_account_home", lambda: home)

    monkeypatch.setenv("OPENHANDS_TEST", "1")
    assert hidden_from_tests(personal)
    assert read_toml(str(personal)) is None
    assert get_llm_config_arg("personal", str(personal)) is None

    monkeypatch.setenv("OPENHANDS_TEST", "0")
    found = get_llm_config_arg("personal", str(personal))
    assert found is not None and found.model == "my-model"


def test_an_explicit_test_file_is_read_under_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENHANDS_TEST", "1")
    toml = tmp_path / "config.toml"
    toml.write_text("[core]\nmax_iterations = 21\n")
    assert load_openhands_config(config_file=str(toml)).max_iterations == 21


def test_the_suite_drops_the_developers_llm_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import conftest

    monkeypatch.setenv("LLM_API_KEY", "sk-developer")
    monkeypatch.setenv("LLM_MODEL", "anthropic/claude")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("LLM_KEEP_ME_NOT", "x")

    monkeypatch.setenv("OPENHANDS_TEST", "0")
    conftest._drop_developer_llm_variables()
    assert os.environ["LLM_API_KEY"] == "sk-developer"

    monkeypatch.setenv("OPENHANDS_TEST", "1")
    conftest._drop_developer_llm_variables()
    for name in ("LLM_API_KEY", "LLM_MODEL", "OPENAI_API_KEY", "LLM_KEEP_ME_NOT"):
        assert name not in os.environ
