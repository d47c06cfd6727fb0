"""openhands.cli.log_file: while the terminal app runs, log output goes to a file."""

from __future__ import annotations

import logging
import stat
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from openhands.cli import log_file
from openhands.cli.log_file import cli_log_path, logs_to_file
from openhands.core.logger import MASK, openhands_logger, register_secret, unregister_secret


@contextmanager
def terminal_logger() -> Iterator[logging.Logger]:
    """A logger printing to the terminal, as LiteLLM's or our console handler do.

    Made inside the test body: pytest gives each test phase its own captured ``sys.stderr``,
    and the handler must hold the one of the moment, as the app's handlers do."""
    logger = logging.getLogger("tests.cli.terminal")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    try:
        yield logger
    finally:
        logger.removeHandler(handler)


def test_log_records_go_to_the_file_not_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "logs" / "cli.log"
    with terminal_logger() as logger:
        with logs_to_file(path) as opened:
            logger.warning("CLIRuntime workspace is /somewhere")
            logger.debug("step 3")
        assert opened == path
        assert capsys.readouterr().err == ""
        assert path.read_text().splitlines() == [
            "WARNING CLIRuntime workspace is /somewhere",
            "DEBUG step 3",
        ]
        # Afterwards the handler prints where it printed before.
        logger.warning("after the app")
    assert capsys.readouterr().err == "WARNING after the app\n"
    assert "after the app" not in path.read_text()


def test_openhands_console_handler_is_silenced_on_screen(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cli.log"
    level = openhands_logger.level
    openhands_logger.setLevel(logging.WARNING)
    try:
        with logs_to_file(path):
            openhands_logger.warning("no sandbox or isolation")
            openhands_logger.info("an info line below the level")
    finally:
        openhands_logger.setLevel(level)
    captured = capfd.readouterr()
    assert "no sandbox or isolation" not in captured.err + captured.out
    text = path.read_text()
    assert "no sandbox or isolation" in text
    assert "an info line below the level" not in text


def test_stderr_writes_and_late_handlers_land_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cli.log"
    late = logging.getLogger("tests.cli.late")
    late.propagate = False
    try:
        with logs_to_file(path):
            # LiteLLM creates its handler on import, which happens while the app runs.
            handler = logging.StreamHandler()
            late.addHandler(handler)
            late.error("late handler line")
            print("stray stderr line", file=sys.stderr)
            try:
                1 / 0  # noqa: B018
            except ZeroDivisionError:
                traceback.print_exc()
        assert handler.stream is sys.stderr  # given back to the terminal afterwards
    finally:
        late.handlers.clear()
    assert capsys.readouterr().err == ""
    text = path.read_text()
    for expected in ("late handler line", "stray stderr line"):
        assert expected in text
    assert "Traceback" in text and "ZeroDivisionError" in text


def test_secrets_are_masked_and_the_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "cli.log"
    secret = "sk-test-secret-value-123"
    register_secret(secret)
    try:
        with logs_to_file(path):
            print(f"Traceback with {secret} in it", file=sys.stderr)
    finally:
        unregister_secret(secret)
    text = path.read_text()
    assert secret not in text and f"Traceback with {MASK} in it" in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_large_log_is_rotated_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cli.log"
    path.write_text("old run\n" * 10)
    monkeypatch.setattr(log_file, "MAX_LOG_BYTES", 20)
    with logs_to_file(path):
        print("new run", file=sys.stderr)
    assert path.read_text() == "new run\n"
    assert path.with_name("cli.log.1").read_text() == "old run\n" * 10


def test_an_unwritable_log_drops_output_instead_of_drawing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with terminal_logger() as logger, logs_to_file(blocker / "cli.log") as opened:
        logger.warning("nowhere to go")
    assert opened is None
    assert capsys.readouterr().err == ""


def test_default_path_is_under_the_current_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cli_log_path() == tmp_path / ".openhands" / "logs" / "cli.log"
