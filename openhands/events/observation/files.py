"""Observations of file reads, writes and edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

from openhands.core.schema import ObservationType
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation.observation import Observation

NO_CHANGES_TEXT = (
    "(no changes detected. Please make sure your edits change the content of the existing file.)\n"
)


@dataclass
class FileReadObservation(Observation):
    path: str
    impl_source: FileReadSource = FileReadSource.DEFAULT

    observation = ObservationType.READ.value

    @property
    def message(self) -> str:
        return f"I read the file {self.path}."

    def __str__(self) -> str:
        return f"[Read from {self.path} is successful.]\n{self.content}"


@dataclass
class FileWriteObservation(Observation):
    path: str

    observation = ObservationType.WRITE.value

    @property
    def message(self) -> str:
        return f"I wrote to the file {self.path}."

    def __str__(self) -> str:
        return f"[Write to {self.path} is successful.]\n{self.content}"


def _numbered(lines: list[str], start: int, width: int) -> list[str]:
    return [f"{start + i:>{width}}|{line}" for i, line in enumerate(lines)]


@dataclass
class FileEditObservation(Observation):
    path: str = ""
    prev_exist: bool = False
    old_content: str | None = None
    new_content: str | None = None
    impl_source: FileEditSource = FileEditSource.LLM_BASED_EDIT
    diff: str | None = None
    _diff_cache: str | None = field(default=None, repr=False)

    observation = ObservationType.EDIT.value

    @property
    def message(self) -> str:
        return f"I edited the file {self.path}."

    def get_edit_groups(self, n_context_lines: int = 2) -> list[dict[str, list[str]]]:
        """Before/after line groups of the edit, each line rendered as ``{lineno}|{text}``."""
        old_lines = (self.old_content or "").split("\n")
        new_lines = (self.new_content or "").split("\n")
        width = len(str(max(len(old_lines), len(new_lines))))
        groups = []
        matcher = SequenceMatcher(None, old_lines, new_lines)
        for opcodes in matcher.get_grouped_opcodes(n_context_lines):
            before: list[str] = []
            after: list[str] = []
            for tag, i1, i2, j1, j2 in opcodes:
                if tag == "equal":
                    before += _numbered(old_lines[i1:i2], i1 + 1, width)
                    after += _numbered(new_lines[j1:j2], j1 + 1, width)
                    continue
                if tag in ("replace", "delete"):
                    before += [
                        "-" + line for line in _numbered(old_lines[i1:i2], i1 + 1, width - 1)
                    ]
                if tag in ("replace", "insert"):
                    after += ["+" + line for line in _numbered(new_lines[j1:j2], j1 + 1, width - 1)]
            groups.append({"before_edits": before, "after_edits": after})
        return groups

    def visualize_diff(self, n_context_lines: int = 2, change_applied: bool = True) -> str:
        """Human-readable rendering of the edit (cached when the change was applied)."""
        if change_applied and self._diff_cache is not None:
            return self._diff_cache
        if self.old_content == self.new_content:
            return NO_CHANGES_TEXT
        groups = self.get_edit_groups(n_context_lines)
        word = "edit" if change_applied else "ATTEMPTED edit"
        if change_applied:
            header = f"[Existing file {self.path} is edited with {len(groups)} changes.]"
        else:
            header = (
                f"[Changes are NOT applied to {self.path} - Here's how the file looks like "
                "if changes are applied.]"
            )
        parts = [header]
        for i, group in enumerate(groups, start=1):
            if i > 1:
                parts.append("-" * 25)
            parts.append(f"[begin of {word} {i} / {len(groups)}]")
            parts.append("(content before " + word + ")")
            parts.extend(group["before_edits"])
            parts.append("(content after " + word + ")")
            parts.extend(group["after_edits"])
            parts.append(f"[end of {word} {i} / {len(groups)}]")
        text = "\n".join(parts)
        if change_applied:
            self._diff_cache = text
        return text

    def __str__(self) -> str:
        if self.impl_source == FileEditSource.OH_ACI:
            return self.content
        if not self.prev_exist:
            return f"[New file {self.path} is created with the provided content.]\n"
        return self.visualize_diff().rstrip() + "\n"
