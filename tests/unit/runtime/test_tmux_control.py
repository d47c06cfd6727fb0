"""TmuxControl against a real tmux server: quoting, answers, errors, a client that is gone."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.runtime.utils.tmux_control import (
    TmuxControl,
    TmuxControlClosed,
    TmuxControlError,
)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

AWKWARD = [
    "plain",
    "ends with a semicolon;",
    ";",
    "find . -exec grep -l x {} \\;",
    "\"double\" 'single' `backtick`",
    "$HOME ${X} $(ls) \\$",
    "~/x ~",
    "~",
    "#{pane_id} # not a comment",
    "{ } %if %endif %end 1 2 3",
    "back\\slash \\n \\t \\",
    "tab\there",
    "new\nline\n",
    "unicode é ✓ 日本",
    "control \x01\x1b[31m \x7f",
    "-t",
    "--",
    "x" * 100_000,
]


@pytest.fixture
def session() -> Iterator[tuple[str, str]]:
    socket_name = f"{os.environ['OPENHANDS_TMUX_SOCKET_PREFIX']}-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["tmux", "-L", socket_name, "new-session", "-d", "-s", "main", "-x", "200", "-y", "50"],
        check=True,
    )
    try:
        yield socket_name, "main"
    finally:
        subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True)


@pytest.fixture
def control(session: tuple[str, str]) -> Iterator[TmuxControl]:
    socket_name, name = session
    client = TmuxControl(name, socket_name)
    try:
        yield client
    finally:
        client.close()


@pytest.mark.parametrize("text", AWKWARD, ids=range(len(AWKWARD)))
def test_arguments_reach_tmux_unchanged(control: TmuxControl, tmp_path: Path, text: str) -> None:
    saved = tmp_path / "buffer"
    control.run(["set-buffer", "-b", "t", "--", text], ["save-buffer", "-b", "t", str(saved)])
    assert saved.read_bytes() == text.encode()


def test_each_command_of_a_line_answers(control: TmuxControl) -> None:
    out = control.run(["display-message", "-p", "one"], ["display-message", "-p", "two"])
    assert out == ["one", "two"]
    # The window keeps its size: a control client without a size of its own does not count.
    assert control.run(["display-message", "-p", "-t", "main", "#{window_width}"]) == ["200"]


def test_an_error_stops_the_line_and_the_next_command_still_works(control: TmuxControl) -> None:
    with pytest.raises(TmuxControlError, match="can't find pane"):
        control.run(
            ["display-message", "-p", "one"],
            ["capture-pane", "-p", "-t", "%999"],
            ["display-message", "-p", "never"],
        )
    assert control.run(["display-message", "-p", "after"]) == ["after"]


def test_a_large_answer_arrives_whole(control: TmuxControl) -> None:
    lines = [f"line {i}" for i in range(20_000)]  # ~200 KB: many reads of the pipe
    control.run(["set-buffer", "-b", "big", "--", "\n".join(lines)])
    assert control.run(["show-buffer", "-b", "big"]) == lines


def test_no_session_means_no_client(session: tuple[str, str]) -> None:
    socket_name, _ = session
    with pytest.raises((TmuxControlClosed, TmuxControlError)):
        TmuxControl("no-such-session", socket_name)


def test_a_client_whose_server_is_gone_says_so(session: tuple[str, str]) -> None:
    socket_name, name = session
    client = TmuxControl(name, socket_name)
    subprocess.run(["tmux", "-L", socket_name, "kill-server"], check=True)
    with pytest.raises(TmuxControlClosed):
        # The client may notice on the write or only when the answer does not come.
        for _ in range(50):
            client.run(["display-message", "-p", "x"])
    client.close()


@pytest.fixture
def watching() -> Iterator[TmuxControl]:
    """A client watching for "MARK-42" in a session running a plain bash (no rc files)."""
    socket_name = f"{os.environ['OPENHANDS_TMUX_SOCKET_PREFIX']}-{uuid.uuid4().hex[:8]}"
    new_session = ["tmux", "-L", socket_name, "new-session", "-d", "-s", "main"]
    subprocess.run([*new_session, "-x", "200", "-y", "50", "bash --norc --noprofile"], check=True)
    client = TmuxControl("main", socket_name, watch="MARK-42")
    try:
        yield client
    finally:
        client.close()
        subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True)


def type_line(control: TmuxControl, text: str) -> None:
    control.run(["send-keys", "-t", "main", "-l", "--", text], ["send-keys", "-t", "main", "Enter"])


def test_a_watched_text_printed_in_the_pane_is_counted(watching: TmuxControl) -> None:
    seen = watching.marks_seen
    assert not watching.wait_for_mark(seen, 0.05)  # nothing printed yet
    # The typed line does not hold the mark; what it prints does, twice.
    type_line(watching, "printf 'MARK''-42 MARK''-42\\n'")
    assert watching.wait_for_mark(seen, 10)
    # Once counted, the pane already shows it.
    assert "MARK-42 MARK-42" in "\n".join(watching.run(["capture-pane", "-p", "-t", "main"]))
    assert watching.marks_seen == seen + 2


def test_a_watched_text_printed_in_two_writes_is_counted_once(watching: TmuxControl) -> None:
    seen = watching.marks_seen
    type_line(watching, "printf 'MAR'; sleep 0.2; printf 'K-42\\n'")
    assert watching.wait_for_mark(seen, 10)
    assert watching.marks_seen == seen + 1


def test_marks_before_answer_is_the_count_when_the_answer_came(watching: TmuxControl) -> None:
    type_line(watching, "printf 'MARK''-42\\n'")
    assert watching.wait_for_mark(0, 10)
    watching.run(["display-message", "-p", "x"])
    assert watching.marks_before_answer == watching.marks_seen == 1


def test_much_pane_output_does_not_hold_up_answers(watching: TmuxControl) -> None:
    seen = watching.marks_seen
    type_line(watching, "seq 1 200000; printf 'MARK''-42\\n'")
    assert watching.run(["display-message", "-p", "still here"]) == ["still here"]
    assert watching.wait_for_mark(seen, 60)
