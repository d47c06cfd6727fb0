"""The str_replace_editor on a temporary directory: every message of runtime.md §5.3–5.4."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.events.action import FileEditAction, FileReadAction, FileWriteAction
from openhands.events.event import FileEditSource, FileReadSource
from openhands.runtime.utils.editor import OHEditor, ToolError
from openhands.runtime.utils.editor.actions import editor_edit, editor_read
from openhands.runtime.utils.editor.render import FILE_CLIPPED_NOTICE
from openhands.runtime.utils.files import write_file


@pytest.fixture
def editor(tmp_path: Path) -> OHEditor:
    return OHEditor(workspace_root=str(tmp_path), history_dir=tmp_path / ".history-store")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.txt"
    path.write_text("line one\nline two\nline three\n")
    return path


def error_of(editor: OHEditor, **kwargs: object) -> str:
    with pytest.raises(ToolError) as info:
        editor(**kwargs)  # type: ignore[arg-type]
    return info.value.message


# -- view ------------------------------------------------------------------------------------


def test_view_file_numbers_every_line(editor: OHEditor, sample: Path) -> None:
    out = editor(command="view", path=str(sample)).output
    assert out == (
        f"Here's the result of running `cat -n` on {sample}:\n"
        "     1\tline one\n     2\tline two\n     3\tline three\n     4\t\n"
    )


def test_view_range(editor: OHEditor, sample: Path) -> None:
    out = editor(command="view", path=str(sample), view_range=[2, 3]).output
    assert out == (
        f"Here's the result of running `cat -n` on {sample}:\n     2\tline two\n     3\tline three\n"
    )
    out = editor(command="view", path=str(sample), view_range=[2, -1]).output
    assert out.endswith("     2\tline two\n     3\tline three\n")


def test_view_range_past_the_end_is_clamped_with_note(editor: OHEditor, sample: Path) -> None:
    out = editor(command="view", path=str(sample), view_range=[1, 10]).output
    assert out.startswith(
        "NOTE: We only show up to 3 since there're only 3 lines in this file.\n"
        f"Here's the result of running `cat -n` on {sample}:\n"
    )


@pytest.mark.parametrize(
    ("view_range", "message"),
    [
        ([1], "Invalid `view_range` parameter: [1]. It should be a list of two integers."),
        (
            [0, 2],
            "Invalid `view_range` parameter: [0, 2]. Its first element `0` should be within the "
            "range of lines of the file: [1, 3].",
        ),
        (
            [3, 2],
            "Invalid `view_range` parameter: [3, 2]. Its second element `2` should be greater "
            "than or equal to the first element `3`.",
        ),
    ],
)
def test_view_range_errors(
    editor: OHEditor, sample: Path, view_range: list[int], message: str
) -> None:
    assert error_of(editor, command="view", path=str(sample), view_range=view_range) == message


def test_long_file_is_clipped_before_numbering(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("x" * 20_000)
    out = editor(command="view", path=str(path)).output
    assert out.endswith(f"     1\t{'x' * 16_000}{FILE_CLIPPED_NOTICE}\n")


def test_view_directory_two_levels_without_hidden(editor: OHEditor, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "a" / "deep" / "deeper").mkdir(parents=True)
    (root / "a" / "file.py").write_text("")
    (root / "b.txt").write_text("")
    (root / ".git").mkdir()
    (root / ".env").write_text("")
    (root / "a" / ".cache").mkdir()
    out = editor(command="view", path=str(root)).output
    assert out == (
        f"Here's the files and directories up to 2 levels deep in {root}, excluding hidden items:\n"
        f"{root}/\n{root}/a/\n{root}/a/deep/\n{root}/a/file.py\n{root}/b.txt\n"
        f"\n2 hidden files/directories in this directory are excluded. "
        f"You can use 'ls -la {root}' to see them."
    )


def test_view_directory_without_hidden_has_no_sentence(editor: OHEditor, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "f").write_text("")
    out = editor(command="view", path=str(root)).output
    assert out.endswith(f"excluding hidden items:\n{root}/\n{root}/f")


def test_view_range_on_directory_is_refused(editor: OHEditor, tmp_path: Path) -> None:
    assert error_of(editor, command="view", path=str(tmp_path), view_range=[1, 2]) == (
        "Invalid `view_range` parameter: [1, 2]. The `view_range` parameter is not allowed when "
        "`path` points to a directory."
    )


# -- path and file checks ----------------------------------------------------------------------


def test_relative_path_suggests_the_workspace_path(
    editor: OHEditor, sample: Path, tmp_path: Path
) -> None:
    assert error_of(editor, command="view", path="sample.txt") == (
        "Invalid `path` parameter: sample.txt. The path should be an absolute path, starting "
        f"with `/`. Maybe you meant {tmp_path}/sample.txt?"
    )
    assert error_of(editor, command="view", path="nope.txt") == (
        "Invalid `path` parameter: nope.txt. The path should be an absolute path, starting with `/`."
    )


def test_missing_path(editor: OHEditor, tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    assert error_of(editor, command="view", path=str(missing)) == (
        f"Invalid `path` parameter: {missing}. The path {missing} does not exist. "
        "Please provide a valid path."
    )


def test_edit_on_directory_is_refused(editor: OHEditor, tmp_path: Path) -> None:
    assert error_of(editor, command="str_replace", path=str(tmp_path), old_str="a") == (
        f"Invalid `path` parameter: {tmp_path}. The path {tmp_path} is a directory and only the "
        "`view` command can be used on directories."
    )


def test_edit_on_supported_binary_is_refused(editor: OHEditor, tmp_path: Path) -> None:
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    assert error_of(editor, command="insert", path=str(pdf), insert_line=0, new_str="x") == (
        f"Invalid `path` parameter: {pdf}. The path {pdf} points to a binary file (.pdf) and "
        "only the `view` command can be used on supported binary files."
    )


def test_unsupported_binary_and_large_files(editor: OHEditor, tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 8)
    assert error_of(editor, command="view", path=str(blob)) == (
        f"File validation failed for {blob}: File appears to be binary and this file type "
        "cannot be read or edited by this tool."
    )
    big = tmp_path / "big.txt"
    big.write_text("a" * (11 * 1024 * 1024))
    assert error_of(editor, command="view", path=str(big)) == (
        f"File validation failed for {big}: File is too large (11.0MB). Maximum allowed size "
        "is 10MB."
    )


def test_unknown_command(editor: OHEditor, sample: Path) -> None:
    assert error_of(editor, command="delete", path=str(sample)) == (
        "Unrecognized command delete. The allowed commands for the oh_editor tool are: view, "
        "create, str_replace, insert, undo_edit"
    )


# -- create --------------------------------------------------------------------------------------


def test_create(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "new.py"
    result = editor(command="create", path=str(path), file_text="print(1)\n")
    assert result.output == f"File created successfully at: {path}"
    assert path.read_text() == "print(1)\n"
    assert error_of(editor, command="create", path=str(path), file_text="x") == (
        f"Invalid `path` parameter: {path}. File already exists at: {path}. Cannot overwrite "
        "files using command `create`."
    )


def test_create_needs_file_text_and_an_existing_parent(editor: OHEditor, tmp_path: Path) -> None:
    assert error_of(editor, command="create", path=str(tmp_path / "x.txt")) == (
        "Parameter `file_text` is required for command: create."
    )
    orphan = tmp_path / "no" / "dir" / "x.txt"
    message = error_of(editor, command="create", path=str(orphan), file_text="x")
    assert message.startswith("Ran into ") and message.endswith(
        f"while trying to write to {orphan}"
    )


# -- str_replace ------------------------------------------------------------------------------------


def test_str_replace_unique(editor: OHEditor, sample: Path) -> None:
    out = editor(
        command="str_replace", path=str(sample), old_str="line two", new_str="line 2"
    ).output
    assert sample.read_text() == "line one\nline 2\nline three\n"
    assert out == (
        f"The file {sample} has been edited. Here's the result of running `cat -n` on a snippet "
        f"of {sample}:\n     1\tline one\n     2\tline 2\n     3\tline three\n     4\t\n"
        "Review the changes and make sure they are as expected. Edit the file again if necessary."
    )


def test_str_replace_snippet_window(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("".join(f"l{i}\n" for i in range(1, 21)))
    out = editor(command="str_replace", path=str(path), old_str="l10\n", new_str="A\nB\n").output
    numbered = [line for line in out.split("\n") if "\t" in line]
    assert numbered[0] == "     6\tl6"
    assert numbered[-1] == "    16\tl15"  # hit line 10 + 4 + two newlines in new_str


def test_str_replace_errors(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "dup.txt"
    path.write_text("test\ntest\nother\n")
    assert error_of(editor, command="str_replace", path=str(path), old_str="test", new_str="x") == (
        "No replacement was performed. Multiple occurrences of old_str `test` in lines [1, 2]. "
        "Please ensure it is unique."
    )
    assert error_of(editor, command="str_replace", path=str(path), old_str="zzz", new_str="x") == (
        f"No replacement was performed, old_str `zzz` did not appear verbatim in {path}."
    )
    assert error_of(editor, command="str_replace", path=str(path), old_str="a", new_str="a") == (
        "Invalid `new_str` parameter: a. No replacement was performed. `new_str` and `old_str` "
        "must be different."
    )
    assert error_of(editor, command="str_replace", path=str(path)) == (
        "Parameter `old_str` is required for command: str_replace."
    )


def test_str_replace_retries_with_stripped_strings(editor: OHEditor, sample: Path) -> None:
    editor(command="str_replace", path=str(sample), old_str="  line two \n\n", new_str=" 2 ")
    assert sample.read_text() == "line one\n2\nline three\n"


def test_str_replace_missing_new_str_deletes(editor: OHEditor, sample: Path) -> None:
    editor(command="str_replace", path=str(sample), old_str="line two\n")
    assert sample.read_text() == "line one\nline three\n"


def test_empty_old_str_on_file_from_write_action(editor: OHEditor, tmp_path: Path) -> None:
    write_file(FileWriteAction(path="three.txt", content="a\nb\nc"), str(tmp_path), 0)
    path = tmp_path / "three.txt"
    assert error_of(editor, command="str_replace", path=str(path), old_str="", new_str="x") == (
        "No replacement was performed. Multiple occurrences of old_str `` in lines [1, 2, 3, 4]. "
        "Please ensure it is unique."
    )


# -- insert / undo ---------------------------------------------------------------------------------


def test_insert_after_line(editor: OHEditor, sample: Path) -> None:
    out = editor(command="insert", path=str(sample), insert_line=1, new_str="inserted").output
    assert sample.read_text().split("\n")[1] == "inserted"
    assert out.startswith(
        f"The file {sample} has been edited. Here's the result of running `cat -n` on a snippet "
        "of the edited file:\n     1\tline one\n     2\tinserted\n     3\tline two\n"
    )
    assert out.endswith(
        "Review the changes and make sure they are as expected (correct indentation, no "
        "duplicate lines, etc). Edit the file again if necessary."
    )


def test_insert_at_top_and_end(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "no-newline.txt"
    path.write_text("a\nb")
    editor(command="insert", path=str(path), insert_line=0, new_str="top")
    editor(command="insert", path=str(path), insert_line=3, new_str="end")
    assert path.read_text() == "top\na\nb\nend\n"


def test_insert_errors(editor: OHEditor, sample: Path) -> None:
    assert error_of(editor, command="insert", path=str(sample), insert_line=9, new_str="x") == (
        "Invalid `insert_line` parameter: 9. It should be within the range of allowed values: "
        "[0, 3]"
    )
    assert error_of(editor, command="insert", path=str(sample), new_str="x") == (
        "Parameter `insert_line` is required for command: insert."
    )
    assert error_of(editor, command="insert", path=str(sample), insert_line=1) == (
        "Parameter `new_str` is required for command: insert."
    )


def test_undo_edit(editor: OHEditor, sample: Path) -> None:
    assert error_of(editor, command="undo_edit", path=str(sample)) == (
        f"No edit history found for {sample}."
    )
    before = sample.read_text()
    editor(command="str_replace", path=str(sample), old_str="line one", new_str="first")
    out = editor(command="undo_edit", path=str(sample)).output
    assert sample.read_text() == before
    assert out.startswith(
        f"Last edit to {sample} undone successfully. Here's the result of running `cat -n` on "
        f"{sample}:\n     1\tline one\n"
    )


def test_undo_right_after_create_keeps_the_text(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    editor(command="create", path=str(path), file_text="hello\n")
    editor(command="undo_edit", path=str(path))
    assert path.read_text() == "hello\n"


def test_history_is_bounded(editor: OHEditor, sample: Path) -> None:
    for i in range(12):
        editor(command="insert", path=str(sample), insert_line=0, new_str=f"v{i}")
    assert len(editor.history.entries(sample)) == 10


def test_encoding_is_kept(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "cyrillic.txt"
    text = "Съешь же ещё этих мягких французских булок, да выпей чаю.\n" * 20
    path.write_bytes(text.encode("cp1251"))
    editor(command="insert", path=str(path), insert_line=0, new_str="Привет")
    written = path.read_bytes().decode("cp1251")
    assert written == "Привет\n" + text


# -- observations (§5.4) ------------------------------------------------------------------------------


def test_read_observation(editor: OHEditor, sample: Path) -> None:
    obs = editor_read(editor, FileReadAction(path=str(sample), view_range=[1, 1]))
    assert obs.impl_source == FileReadSource.OH_ACI
    assert obs.path == str(sample)
    assert obs.content.endswith("     1\tline one\n")
    bad = editor_read(editor, FileReadAction(path="rel.txt"))
    assert bad.content.startswith("ERROR:\nInvalid `path` parameter: rel.txt.")


def test_edit_observation_has_diff_and_action_strings(editor: OHEditor, sample: Path) -> None:
    action = FileEditAction(
        path=str(sample), command="str_replace", old_str="line two", new_str="line 2"
    )
    obs = editor_edit(editor, action)
    assert obs.impl_source == FileEditSource.OH_ACI
    assert obs.old_content == "line two" and obs.new_content == "line 2"
    assert obs.prev_exist is False
    assert obs.diff == f"--- {sample}\n+++ {sample}\n@@ -2 +2 @@\n-line two\n+line 2"
    assert obs.content.startswith(f"The file {sample} has been edited.")


def test_edit_observation_errors_are_prefixed(editor: OHEditor, tmp_path: Path) -> None:
    create = FileEditAction(path=str(tmp_path / "n.txt"), command="create")
    obs = editor_edit(editor, create)
    assert obs.content == "ERROR:\nParameter `file_text` is required for command: create."
    assert obs.diff == ""
    insert = FileEditAction(path=str(tmp_path), command="insert", new_str="x")
    insert.insert_line = "abc"  # type: ignore[assignment]
    obs = editor_edit(editor, insert)
    assert obs.content == "ERROR:\nInvalid insert_line value: 'abc'. Expected an integer."


def test_create_observation_diff(editor: OHEditor, tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    obs = editor_edit(editor, FileEditAction(path=str(path), command="create", file_text="a\n"))
    assert obs.content == f"File created successfully at: {path}"
    assert obs.diff == f"--- {path}\n+++ {path}\n@@ -0,0 +1 @@\n+a"
