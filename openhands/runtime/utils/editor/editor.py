"""Our ``str_replace_editor``: view, create, str_replace, insert and undo_edit (runtime.md §5.3).

Every failure is a ToolError whose message the agent reads; success returns a ToolResult.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from binaryornot.check import is_binary

from openhands.runtime.utils.editor.directory import view_directory
from openhands.runtime.utils.editor.encoding import EncodingManager
from openhands.runtime.utils.editor.errors import (
    FileValidationError,
    ParameterInvalidError,
    ParameterMissingError,
    ToolError,
)
from openhands.runtime.utils.editor.history import FileHistory
from openhands.runtime.utils.editor.markdown import convert_to_markdown
from openhands.runtime.utils.editor.render import (
    BINARY_CLIPPED_NOTICE,
    SNIPPET_CONTEXT_LINES,
    clip,
    numbered_snippet,
)

COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
MAX_FILE_SIZE_MB = 10
# Binary documents `view` converts to Markdown; every other command refuses them.
SUPPORTED_BINARY_EXTENSIONS = frozenset(
    {".docx", ".xlsx", ".pptx", ".pdf", ".mp3", ".wav", ".m4a", ".flac"}
)


@dataclass
class ToolResult:
    output: str = ""
    path: str | None = None
    prev_exist: bool = True
    old_content: str | None = None  # file text before the command (None: no file)
    new_content: str | None = None  # file text after the command


def count_lines(text: str) -> int:
    """Lines as `for line in file` sees them: a last line without newline still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


class OHEditor:
    def __init__(self, workspace_root: str | None = None, history_dir: Path | None = None):
        self.workspace_root = Path(workspace_root) if workspace_root else None
        self.history = FileHistory(history_dir)
        self.encodings = EncodingManager()

    def close(self) -> None:
        """Drop the undo history (its temporary directory, when it has one)."""
        self.history.close()

    def __call__(
        self,
        *,
        command: str,
        path: str,
        file_text: str | None = None,
        view_range: list[int] | None = None,
        old_str: str | None = None,
        new_str: str | None = None,
        insert_line: int | None = None,
    ) -> ToolResult:
        target = Path(path)
        self.validate_path(command, target)
        if command == "view":
            return self.view(target, view_range)
        if command == "create":
            return self.create(target, file_text)
        if command == "str_replace":
            return self.str_replace(target, old_str, new_str)
        if command == "insert":
            return self.insert(target, insert_line, new_str)
        if command == "undo_edit":
            return self.undo_edit(target)
        raise ToolError(
            f"Unrecognized command {command}. The allowed commands for the oh_editor tool are: "
            + ", ".join(COMMANDS)
        )

    # -- checks ---------------------------------------------------------------------------------

    def validate_path(self, command: str, path: Path) -> None:
        if not path.is_absolute():
            hint = "The path should be an absolute path, starting with `/`."
            if self.workspace_root is not None:
                suggestion = self.workspace_root / path
                if suggestion.exists():
                    hint += f" Maybe you meant {suggestion}?"
            raise ParameterInvalidError("path", path, hint)
        if command == "create":
            if path.exists():
                raise ParameterInvalidError(
                    "path",
                    path,
                    f"File already exists at: {path}. Cannot overwrite files using command "
                    "`create`.",
                )
            return
        if not path.exists():
            raise ParameterInvalidError(
                "path", path, f"The path {path} does not exist. Please provide a valid path."
            )
        if command != "view":
            if path.is_dir():
                raise ParameterInvalidError(
                    "path",
                    path,
                    f"The path {path} is a directory and only the `view` command can be used "
                    "on directories.",
                )
            if path.suffix.lower() in SUPPORTED_BINARY_EXTENSIONS:
                raise ParameterInvalidError(
                    "path",
                    path,
                    f"The path {path} points to a binary file ({path.suffix}) and only the "
                    "`view` command can be used on supported binary files.",
                )

    def validate_file(self, path: Path) -> None:
        if not path.is_file():
            return
        size_mb = path.stat().st_size / (1024 * 1024)
        if size_mb > MAX_FILE_SIZE_MB:
            raise FileValidationError(
                str(path),
                f"File is too large ({size_mb:.1f}MB). Maximum allowed size is "
                f"{MAX_FILE_SIZE_MB}MB.",
            )
        if path.suffix.lower() not in SUPPORTED_BINARY_EXTENSIONS and is_binary(str(path)):
            raise FileValidationError(
                str(path),
                "File appears to be binary and this file type cannot be read or edited by "
                "this tool.",
            )

    # -- file access -------------------------------------------------------------------------

    def read_file(self, path: Path) -> str:
        self.validate_file(path)
        try:
            return self.encodings.read_text(path)
        except OSError as exc:
            raise ToolError(f"Ran into {exc} while trying to read {path}") from None

    def write_file(self, path: Path, content: str) -> None:
        try:
            self.encodings.write_text(path, content)
        except OSError as exc:
            raise ToolError(f"Ran into {exc} while trying to write to {path}") from None

    # -- commands ------------------------------------------------------------------------------

    def view(self, path: Path, view_range: list[int] | None = None) -> ToolResult:
        if path.is_dir():
            if view_range:
                raise ParameterInvalidError(
                    "view_range",
                    view_range,
                    "The `view_range` parameter is not allowed when `path` points to a directory.",
                )
            return ToolResult(output=view_directory(path), path=str(path))
        if path.suffix.lower() in SUPPORTED_BINARY_EXTENSIONS:
            self.validate_file(path)
            markdown = clip(convert_to_markdown(path), BINARY_CLIPPED_NOTICE)
            output = f"Here's the content of the file {path} displayed in Markdown format:\n"
            return ToolResult(output=output + markdown + "\n", path=str(path))

        content = self.read_file(path)
        if not view_range:
            return ToolResult(
                output=numbered_snippet(content, str(path)), path=str(path), new_content=content
            )
        start, end, note = self._check_view_range(view_range, count_lines(content))
        selected = "\n".join(content.split("\n")[start - 1 : end])
        output = note + numbered_snippet(selected, str(path), start)
        return ToolResult(output=output, path=str(path), new_content=content)

    @staticmethod
    def _check_view_range(view_range: list[int], n_lines: int) -> tuple[int, int, str]:
        if len(view_range) != 2 or not all(isinstance(i, int) for i in view_range):
            raise ParameterInvalidError(
                "view_range", view_range, "It should be a list of two integers."
            )
        start, end = view_range
        if start < 1 or start > n_lines:
            raise ParameterInvalidError(
                "view_range",
                view_range,
                f"Its first element `{start}` should be within the range of lines of the file: "
                f"[1, {n_lines}].",
            )
        note = ""
        if end == -1:
            end = n_lines
        elif end > n_lines:
            note = (
                f"NOTE: We only show up to {n_lines} since there're only {n_lines} lines in "
                "this file.\n"
            )
            end = n_lines
        if end < start:
            raise ParameterInvalidError(
                "view_range",
                view_range,
                f"Its second element `{end}` should be greater than or equal to the first "
                f"element `{start}`.",
            )
        return start, end, note

    def create(self, path: Path, file_text: str | None) -> ToolResult:
        if file_text is None:
            raise ParameterMissingError("create", "file_text")
        self.write_file(path, file_text)
        # Like the reference, the new text (not the absent old one) is what undo restores.
        self.history.push(path, file_text)
        return ToolResult(
            output=f"File created successfully at: {path}",
            path=str(path),
            prev_exist=False,
            old_content=None,
            new_content=file_text,
        )

    def str_replace(self, path: Path, old_str: str | None, new_str: str | None) -> ToolResult:
        if old_str is None:
            raise ParameterMissingError("str_replace", "old_str")
        if new_str == old_str:
            raise ParameterInvalidError(
                "new_str",
                new_str,
                "No replacement was performed. `new_str` and `old_str` must be different.",
            )
        new_str = new_str or ""
        content = self.read_file(path)
        hits = _find(content, old_str)
        if not hits:
            old_str, new_str = old_str.strip(), new_str.strip()
            hits = _find(content, old_str)
        if not hits:
            raise ToolError(
                f"No replacement was performed, old_str `{old_str}` did not appear verbatim in "
                f"{path}."
            )
        if len(hits) > 1:
            lines = sorted({content.count("\n", 0, start) + 1 for start in hits})
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in "
                f"lines {lines}. Please ensure it is unique."
            )
        start = hits[0]
        new_content = content[:start] + new_str + content[start + len(old_str) :]
        self.history.push(path, content)
        self.write_file(path, new_content)

        hit_line = content.count("\n", 0, start) + 1
        first = max(1, hit_line - SNIPPET_CONTEXT_LINES)
        last = hit_line + SNIPPET_CONTEXT_LINES + new_str.count("\n")
        snippet = "\n".join(new_content.split("\n")[first - 1 : last])
        output = (
            f"The file {path} has been edited. "
            + numbered_snippet(snippet, f"a snippet of {path}", first)
            + "Review the changes and make sure they are as expected. Edit the file again if "
            "necessary."
        )
        return ToolResult(
            output=output, path=str(path), old_content=content, new_content=new_content
        )

    def insert(self, path: Path, insert_line: int | None, new_str: str | None) -> ToolResult:
        if insert_line is None:
            raise ParameterMissingError("insert", "insert_line")
        if new_str is None:
            raise ParameterMissingError("insert", "new_str")
        content = self.read_file(path)
        n_lines = count_lines(content)
        if insert_line < 0 or insert_line > n_lines:
            raise ParameterInvalidError(
                "insert_line",
                insert_line,
                f"It should be within the range of allowed values: [0, {n_lines}]",
            )
        lines = content.splitlines(keepends=True)
        if lines and not lines[-1].endswith(("\n", "\r")) and insert_line == n_lines:
            lines[-1] += "\n"  # text goes after the last line, not glued onto it
        inserted = [line + "\n" for line in new_str.split("\n")]
        new_content = "".join(lines[:insert_line] + inserted + lines[insert_line:])
        self.history.push(path, content)
        self.write_file(path, new_content)

        old_lines = content.split("\n")
        snippet_lines = (
            old_lines[max(0, insert_line - SNIPPET_CONTEXT_LINES) : insert_line]
            + new_str.split("\n")
            + old_lines[insert_line : insert_line + SNIPPET_CONTEXT_LINES]
        )
        first = max(1, insert_line - SNIPPET_CONTEXT_LINES + 1)
        output = (
            f"The file {path} has been edited. "
            + numbered_snippet("\n".join(snippet_lines), "a snippet of the edited file", first)
            + "Review the changes and make sure they are as expected (correct indentation, no "
            "duplicate lines, etc). Edit the file again if necessary."
        )
        return ToolResult(
            output=output, path=str(path), old_content=content, new_content=new_content
        )

    def undo_edit(self, path: Path) -> ToolResult:
        previous = self.history.pop(path)
        if previous is None:
            raise ToolError(f"No edit history found for {path}.")
        current = self.read_file(path)
        self.write_file(path, previous)
        output = f"Last edit to {path} undone successfully. " + numbered_snippet(
            previous, str(path)
        )
        return ToolResult(output=output, path=str(path), old_content=current, new_content=previous)


def _find(content: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping literal occurrences (an empty needle hits everywhere)."""
    return [match.start() for match in re.finditer(re.escape(needle), content)]
