"""HTML → Markdown for the ``browse`` page text: links kept, images dropped, no line wrapping.

A small converter of our own on top of ``html.parser``: it builds a forgiving element tree
(unclosed tags are closed by their parent's end tag) and renders it recursively. It aims at
readable text for an agent, not at round-tripping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
_SKIP = frozenset(
    [
        "head",
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "canvas",
        "iframe",
        "object",
        "select",
    ]
)
_BLOCK = frozenset(
    [
        "address",
        "article",
        "aside",
        "body",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "html",
        "main",
        "nav",
        "p",
        "section",
        "summary",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "tr",
    ]
)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")
_RUNS_OF_SPACES = re.compile(r" {2,}")
_LIST_ITEM = re.compile(r"(\*|\d+\.) ")


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[_Node | str] = field(default_factory=list)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root")
        self._stack: list[_Node] = [self.root]
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs})
        # <p> and <li> end implicitly at their next sibling, as browsers do.
        if tag in ("p", "li", "option", "tr", "td", "th", "dt", "dd"):
            self._close_implicit(tag)
        self._stack[-1].children.append(node)
        if tag not in _VOID:
            self._stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._stack[-1].children.append(_Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._stack) - 1, 0, -1):
            if self._stack[depth].tag == tag:
                del self._stack[depth:]
                return
        # A stray end tag with no open element is ignored.

    def handle_data(self, data: str) -> None:
        self._stack[-1].children.append(data)
        if self._stack[-1].tag not in _SKIP:
            self.texts.append(data)

    def _close_implicit(self, tag: str) -> None:
        siblings = {"td": ("td", "th"), "th": ("td", "th"), "dt": ("dt", "dd"), "dd": ("dt", "dd")}
        closes = siblings.get(tag, (tag,))
        if self._stack[-1].tag in closes:
            self._stack.pop()


def html_to_markdown(html: str) -> str:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    try:
        text = _Renderer().block(builder.root)
    except RecursionError:  # pathologically deep markup: plain text is better than nothing
        text = " ".join(builder.texts)
    return _MANY_BLANK_LINES.sub("\n\n", "\n".join(_tidy_lines(text))).strip("\n")


def _tidy_lines(text: str) -> list[str]:
    """Inline pieces leave stray spaces behind; squeeze them, except inside code blocks and
    in the indentation of list items."""
    lines: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if line.strip() == "```":
            in_code = not in_code
            lines.append("```")
            continue
        if in_code:
            lines.append(line.rstrip())
            continue
        body = _RUNS_OF_SPACES.sub(" ", line.strip())
        indent = line[: len(line) - len(line.lstrip())] if _LIST_ITEM.match(body) else ""
        lines.append(indent + body)
    return lines


class _Renderer:
    def __init__(self) -> None:
        self._list_depth = 0

    def block(self, node: _Node) -> str:
        return "".join(self.render(child) for child in node.children)

    def inline(self, node: _Node) -> str:
        """Children on one line (link text, table cells, headings)."""
        return _SPACES.sub(" ", self.block(node)).strip()

    def render(self, item: _Node | str) -> str:
        if isinstance(item, str):
            return _SPACES.sub(" ", item)
        tag = item.tag
        if tag in _SKIP or "hidden" in item.attrs:
            return ""
        if tag in _HEADINGS:
            text = self.inline(item)
            return f"\n\n{'#' * _HEADINGS[tag]} {text}\n\n" if text else ""
        handler = getattr(self, f"_tag_{tag}", None)
        if handler is not None:
            return str(handler(item))
        if tag in _BLOCK:
            return f"\n\n{self.block(item)}\n\n"
        return self.block(item)

    # -- inline ----------------------------------------------------------------------------

    def _tag_img(self, node: _Node) -> str:
        return ""

    def _tag_br(self, node: _Node) -> str:
        return "\n"

    def _tag_hr(self, node: _Node) -> str:
        return "\n\n* * *\n\n"

    def _tag_a(self, node: _Node) -> str:
        text = self.inline(node)
        href = node.attrs.get("href", "").strip()
        if not text:
            return ""
        if not href or href.startswith("javascript:"):
            return text
        return f"[{text}]({href})"

    def _emphasis(self, node: _Node, mark: str) -> str:
        text = self.inline(node)
        return f"{mark}{text}{mark}" if text else ""

    def _tag_strong(self, node: _Node) -> str:
        return self._emphasis(node, "**")

    _tag_b = _tag_strong

    def _tag_em(self, node: _Node) -> str:
        return self._emphasis(node, "_")

    _tag_i = _tag_em

    def _tag_code(self, node: _Node) -> str:
        text = _text_of(node)
        return f"`{text}`" if text else ""

    def _tag_button(self, node: _Node) -> str:
        text = self.inline(node)
        return f" {text} " if text else ""

    def _tag_input(self, node: _Node) -> str:
        # Buttons made of <input> carry their label in ``value``; text fields show nothing.
        if node.attrs.get("type", "").lower() in ("button", "submit", "reset"):
            value = node.attrs.get("value", "").strip()
            return f" {value} " if value else ""
        return ""

    # -- blocks ----------------------------------------------------------------------------

    def _tag_pre(self, node: _Node) -> str:
        body = _text_of(node).strip("\n")
        return f"\n\n```\n{body}\n```\n\n"

    def _tag_blockquote(self, node: _Node) -> str:
        body = self.block(node).strip()
        quoted = "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))
        return f"\n\n{quoted}\n\n"

    def _list(self, node: _Node, ordered: bool) -> str:
        self._list_depth += 1
        try:
            items: list[str] = []
            for child in node.children:
                if isinstance(child, _Node) and child.tag == "li":
                    marker = f"{len(items) + 1}." if ordered else "*"
                    items.append(self._item(child, marker))
                elif isinstance(child, _Node):
                    items.append(self.render(child).strip())
        finally:
            self._list_depth -= 1
        body = "\n".join(item for item in items if item)
        return f"\n\n{body}\n\n" if self._list_depth == 0 else f"\n{body}\n"

    def _item(self, node: _Node, marker: str) -> str:
        indent = "  " * self._list_depth
        lines = [line for line in self.block(node).strip().split("\n") if line.strip()]
        if not lines:
            return ""
        first = f"{indent}{marker} {lines[0].strip()}"
        rest = [
            line if line.startswith(indent) else f"{indent}  {line.strip()}" for line in lines[1:]
        ]
        return "\n".join([first, *rest])

    def _tag_ul(self, node: _Node) -> str:
        return self._list(node, ordered=False)

    def _tag_ol(self, node: _Node) -> str:
        return self._list(node, ordered=True)

    def _tag_li(self, node: _Node) -> str:  # an <li> outside any list
        return f"\n* {self.inline(node)}\n"

    def _tag_table(self, node: _Node) -> str:
        rows: list[tuple[bool, list[str]]] = []
        for row in _rows(node):
            cells = [c for c in row.children if isinstance(c, _Node) and c.tag in ("td", "th")]
            header = bool(cells) and all(c.tag == "th" for c in cells)
            rows.append((header, [self.inline(c).replace("|", "\\|") for c in cells]))
        lines: list[str] = []
        for index, (header, texts) in enumerate(rows):
            lines.append(" | ".join(texts))
            if header and index == 0:
                lines.append(" | ".join("---" for _ in texts))
        return "\n\n" + "\n".join(lines) + "\n\n"


def _rows(table: _Node) -> list[_Node]:
    found: list[_Node] = []
    for child in table.children:
        if not isinstance(child, _Node):
            continue
        if child.tag == "tr":
            found.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            found.extend(_rows(child))
    return found


def _text_of(node: _Node) -> str:
    """Raw text under ``node``, whitespace kept (for <pre> and <code>)."""
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.tag == "br":
            parts.append("\n")
        elif child.tag not in _SKIP:
            parts.append(_text_of(child))
    return "".join(parts)
