"""Errors raised while parsing or applying a diff."""

from __future__ import annotations


class PatchingException(Exception):
    """Base of every patching error."""


class HunkException(PatchingException):
    """An error tied to one hunk (``hunk`` is its 1-based index, when known)."""

    def __init__(self, msg: str, hunk: int | None = None) -> None:
        self.hunk = hunk
        super().__init__(msg if hunk is None else f"{msg}, in hunk #{hunk}")


class ApplyException(PatchingException):
    """A diff could not be applied."""


class SubprocessException(ApplyException):
    """The external ``patch`` program is missing or failed (``code`` is its exit status,
    -1 when it was not found)."""

    def __init__(self, msg: str, code: int) -> None:
        super().__init__(msg)
        self.code = code


class HunkApplyException(HunkException, ApplyException, ValueError):
    """A hunk's context does not match the text it is applied to."""


class ParseException(HunkException, ValueError):
    """A hunk is malformed."""
