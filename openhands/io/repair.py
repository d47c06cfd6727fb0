"""Turning almost-JSON, as language models write it, into JSON.

A forgiving recursive-descent parser that re-emits what it reads as strict JSON text. It
accepts, and fixes:

- single-quoted strings, unquoted keys, and unquoted words as values (``{a: yes please}``);
- Python and JavaScript literals (``True``, ``False``, ``None``, ``undefined``);
- trailing, doubled and missing commas; a key without a value (``{"a": }`` → ``""``);
- raw newlines and tabs inside strings, unknown backslash escapes (kept literally), and
  quotes inside a string that are not followed by ``, : } ]`` (taken as part of the text);
- ``//``, ``/* */`` and ``#`` comments between tokens;
- containers left open at the end of the text, or closed by the wrong bracket;
- numbers such as ``+1``, ``.5`` or ``1.`` (anything else number-like becomes a string).

Nesting deeper than :data:`MAX_DEPTH` is refused with ``ValueError``.
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 200

_WHITESPACE = " \t\r\n\ufeff\u00a0"
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
_CLOSERS = ",:}]"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {
    "true": "true",
    "True": "true",
    "false": "false",
    "False": "false",
    "null": "null",
    "None": "null",
    "undefined": "null",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
}
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\Z")
_NUMBER_CHARS = frozenset("+-0123456789.eE")
_MISSING = '""'


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        # Whether the object parsed last ended with its own "}" (the outermost one finishes
        # last, so after a top-level parse this describes it).
        self.object_closed = False

    # --- reading helpers --------------------------------------------------------------

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _skip_ignorable(self) -> None:
        """Whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in _WHITESPACE:
                self.pos += 1
            elif char == "#" or text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                self.pos = len(text) if end == -1 else end + 2
            else:
                return

    def _next_significant(self, start: int) -> str:
        """The first non-whitespace character at or after ``start`` ('' at the end)."""
        text = self.text
        while start < len(text) and text[start] in _WHITESPACE:
            start += 1
        return text[start] if start < len(text) else ""

    def _read_bare(self, stops: str) -> str:
        """Raw text up to (not including) a character of ``stops`` or a newline."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in stops + "\n":
            self.pos += 1
        return self.text[start : self.pos].strip()

    # --- values -----------------------------------------------------------------------

    def value(self) -> str:
        self._skip_ignorable()
        char = self._peek()
        if char == "" or char in _CLOSERS:
            return _MISSING
        if char in "{[":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
            result = self._object() if char == "{" else self._array()
            self.depth -= 1
            return result
        if char in _QUOTES:
            return self._string()
        if char in _NUMBER_CHARS:
            return self._number()
        return self._word()

    def _object(self) -> str:
        self.pos += 1  # the "{"
        members: list[str] = []
        closed = False
        while True:
            self._skip_ignorable()
            char = self._peek()
            if char == "":
                break
            if char == "}":
                self.pos += 1
                closed = True
                break
            if char == "]":  # the wrong closer: it ends this object and whatever holds it
                break
            if char in ",:":
                self.pos += 1
                continue
            key = self._string() if char in _QUOTES else json.dumps(self._read_bare(":,}]"))
            self._skip_ignorable()
            if self._peek() == ":":
                self.pos += 1
                members.append(f"{key}:{self.value()}")
            else:
                members.append(f"{key}:{_MISSING}")
        self.object_closed = closed
        return "{" + ",".join(members) + "}"

    def _array(self) -> str:
        self.pos += 1  # the "["
        items: list[str] = []
        while True:
            self._skip_ignorable()
            char = self._peek()
            if char == "":
                break
            if char == "]":
                self.pos += 1
                break
            if char == "}":
                break
            if char in ",:":
                self.pos += 1
                continue
            items.append(self.value())
        return "[" + ",".join(items) + "]"

    def _string(self) -> str:
        opening = self.text[self.pos]
        closing = _QUOTES[opening]
        self.pos += 1
        text = self.text
        out: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            self.pos += 1
            if char == "\\" and self.pos < len(text):
                out.append(self._escape())
            elif char == closing and self._ends_string():
                break
            else:
                out.append(char)
        # ASCII-only output (\u escapes): lone surrogates from "\ud83d" escapes then survive
        # the round trip as they would in strict JSON.
        return json.dumps("".join(out))

    def _ends_string(self) -> bool:
        """Whether the quote just read closes the string rather than being part of it."""
        following = self._next_significant(self.pos)
        return following == "" or following in _CLOSERS or following in _QUOTES

    def _escape(self) -> str:
        char = self.text[self.pos]
        self.pos += 1
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char == "'":
            return "'"
        if char == "u":
            digits = self.text[self.pos : self.pos + 4]
            if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                self.pos += 4
                return chr(int(digits, 16))
        return "\\" + char  # not an escape JSON knows: keep the backslash as text

    def _number(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _NUMBER_CHARS:
            self.pos += 1
        token = self.text[start : self.pos]
        if self._peek().isalpha() or self._peek() == "_":  # e.g. "-Infinity" or "3rd"
            self.pos = start
            return self._word()
        if _JSON_NUMBER.match(token):
            return token
        try:
            return json.dumps(int(token))
        except ValueError:
            pass
        try:
            return json.dumps(float(token))
        except ValueError:
            return json.dumps(token)

    def _word(self) -> str:
        word = self._read_bare(",}]")
        if not word:  # a lone character no rule accepts: take it as text
            word = self.text[self.pos]
            self.pos += 1
        return _LITERALS.get(word, json.dumps(word))


def repair_json(text: str) -> str:
    """The first JSON value in ``text``, repaired, as strict JSON text (``""`` if empty)."""
    return _Parser(text).value()


def repair_first_object(text: str) -> str | None:
    """The first ``{...}`` object in ``text``, repaired, as strict JSON text.

    None when ``text`` has no ``{``, or when that object never closes (a truncated or
    stray brace is not taken for an object).
    """
    start = text.find("{")
    if start == -1:
        return None
    parser = _Parser(text)
    parser.pos = start
    repaired = parser.value()
    return repaired if parser.object_closed else None
