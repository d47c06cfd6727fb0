"""Conformance §17 items 13–19: default file read/write and the str_replace_editor."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.events.action import FileEditAction, FileReadAction, FileWriteAction
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation import (
    ErrorObservation,
    FileEditObservation,
    FileReadObservation,
    FileWriteObservation,
)
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)


def edit(sandbox: Sandbox, path: str, command: str, **kwargs: Any) -> FileEditObservation:
    obs = sandbox.runtime.run_action(FileEditAction(path=path, command=command, **kwargs))
    assert isinstance(obs, FileEditObservation), obs
    return obs


def view(sandbox: Sandbox, path: str) -> str:
    obs = sandbox.runtime.run_action(FileReadAction(path, impl_source=FileReadSource.OH_ACI))
    assert isinstance(obs, FileReadObservation), obs
    return obs.content


def write(sandbox: Sandbox, path: str, content: str) -> None:
    obs = sandbox.runtime.run_action(FileWriteAction(path, content))
    assert isinstance(obs, FileWriteObservation), obs


# --- item 13 ----------------------------------------------------------------------------------


def test_write_relative_file_then_read_it_back(sandbox: Sandbox) -> None:
    written = sandbox.via_stream(FileWriteAction("hello.sh", 'echo "Hello, World!"'))
    assert isinstance(written, FileWriteObservation)
    assert written.path == f"{sandbox.workspace}/hello.sh"
    assert written.content == ""
    read = sandbox.via_stream(FileReadAction("hello.sh"))
    assert isinstance(read, FileReadObservation)
    assert read.content == 'echo "Hello, World!"\n'
    owner = sandbox.sh("stat -c '%a %u' hello.sh && bash hello.sh")
    assert owner.content == f"664 {sandbox.uid}\nHello, World!"


# --- item 14 ----------------------------------------------------------------------------------


def test_read_errors(sandbox: Sandbox, test_dir: str) -> None:
    missing = sandbox.runtime.run_action(FileReadAction("no_such_file.txt"))
    assert isinstance(missing, ErrorObservation)
    assert "File not found" in missing.content
    assert f"Your current working directory is {sandbox.workspace}" in missing.content
    directory = sandbox.runtime.run_action(FileReadAction(test_dir))
    assert isinstance(directory, ErrorObservation)
    assert "Path is a directory" in directory.content


# --- item 15 ----------------------------------------------------------------------------------


def test_view_file_is_numbered(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/lines.txt"
    write(sandbox, path, "alpha\nbeta")
    assert view(sandbox, path) == (
        f"Here's the result of running `cat -n` on {path}:\n     1\talpha\n     2\tbeta\n     3\t\n"
    )


def test_view_directory_two_levels(sandbox: Sandbox, test_dir: str) -> None:
    sandbox.sh(
        f"cd {test_dir} && mkdir -p sub/deeper/deepest .hidden_dir && "
        "touch a.txt sub/b.txt sub/deeper/c.txt .hidden_file sub/.hidden_nested"
    )
    assert view(sandbox, test_dir) == (
        f"Here's the files and directories up to 2 levels deep in {test_dir}, "
        "excluding hidden items:\n"
        f"{test_dir}/\n{test_dir}/a.txt\n{test_dir}/sub/\n{test_dir}/sub/b.txt\n"
        f"{test_dir}/sub/deeper/\n"
        "\n"
        f"2 hidden files/directories in this directory are excluded. "
        f"You can use 'ls -la {test_dir}' to see them."
    )


def test_view_relative_path_suggests_the_absolute_one(sandbox: Sandbox, test_dir: str) -> None:
    name = test_dir.rsplit("/", 1)[1]
    content = view(sandbox, name)
    assert content.startswith(f"ERROR:\nInvalid `path` parameter: {name}.")
    assert f"Maybe you meant {test_dir}?" in content


# --- item 16 ----------------------------------------------------------------------------------


def test_create(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/new.py"
    created = sandbox.via_stream(FileEditAction(path=path, command="create", file_text="x = 1\n"))
    assert isinstance(created, FileEditObservation)
    assert created.content == f"File created successfully at: {path}"
    again = edit(sandbox, path, "create", file_text="x = 2\n")
    assert "File already exists at:" in again.content
    missing_text = edit(sandbox, f"{test_dir}/other.py", "create", file_text=None)
    assert missing_text.content == "ERROR:\nParameter `file_text` is required for command: create."


# --- item 17 ----------------------------------------------------------------------------------


def test_str_replace_messages(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/text.txt"
    write(sandbox, path, "first line\nsecond line\nthird line")
    done = edit(sandbox, path, "str_replace", old_str="second", new_str="2nd")
    assert done.content.startswith(f"The file {path} has been edited. ")
    assert "     2\t2nd line" in done.content

    dup = f"{test_dir}/dup.txt"
    write(sandbox, dup, "test\ntest")
    assert edit(sandbox, dup, "str_replace", old_str="test", new_str="x").content == (
        "ERROR:\nNo replacement was performed. Multiple occurrences of old_str `test` in "
        "lines [1, 2]. Please ensure it is unique."
    )
    absent = edit(sandbox, path, "str_replace", old_str="nowhere", new_str="x")
    assert "did not appear verbatim" in absent.content
    same = edit(sandbox, path, "str_replace", old_str="first", new_str="first")
    assert same.content.endswith("`new_str` and `old_str` must be different.")

    three = f"{test_dir}/three.txt"
    write(sandbox, three, "a\nb\nc")
    empty = edit(sandbox, three, "str_replace", old_str="", new_str="x")
    assert "in lines [1, 2, 3, 4]." in empty.content


# --- item 18 ----------------------------------------------------------------------------------


def test_insert_and_undo(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/insert.txt"
    write(sandbox, path, "one\nthree")
    inserted = edit(sandbox, path, "insert", insert_line=1, new_str="two")
    assert inserted.content.startswith(f"The file {path} has been edited. ")
    assert sandbox.sh(f"sed -n 2p {path}").content == "two"
    out_of_range = edit(sandbox, path, "insert", insert_line=10, new_str="x")
    assert "It should be within the range of allowed values: [0, 3]" in out_of_range.content
    undone = edit(sandbox, path, "undo_edit")
    assert undone.content.startswith(f"Last edit to {path} undone successfully.")
    assert sandbox.sh(f"cat {path}").content == "one\nthree"

    fresh = f"{test_dir}/fresh.txt"
    write(sandbox, fresh, "untouched")
    assert edit(sandbox, fresh, "undo_edit").content == (
        f"ERROR:\nNo edit history found for {fresh}."
    )


# --- item 19 ----------------------------------------------------------------------------------


def test_edit_observation_fields(sandbox: Sandbox, test_dir: str) -> None:
    path = f"{test_dir}/diff.txt"
    write(sandbox, path, "keep\nold value\nkeep too")
    obs = edit(sandbox, path, "str_replace", old_str="old value", new_str="new value")
    assert obs.impl_source == FileEditSource.OH_ACI
    assert obs.old_content == "old value"
    assert obs.new_content == "new value"
    assert obs.diff == f"--- {path}\n+++ {path}\n@@ -2 +2 @@\n-old value\n+new value"
