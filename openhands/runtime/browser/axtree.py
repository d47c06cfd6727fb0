"""Render the page snapshot tree (from ``page_scripts.SNAPSHOT_JS``) as BrowserGym-style text.

One line per node, indented with a tab per level::

    RootWebArea 'Sign in', focused
    \t[12] textbox 'Name' value='x', required
    \t[13] button 'Submit', clickable
    \t\tStaticText 'hello'

``[bid]`` starts the line of every element the agent can target; ``StaticText`` repeating its
parent's name is left out, as BrowserGym does.
"""

from __future__ import annotations

from typing import Any

# State flags shown by name alone when true.
_FLAG_PROPERTIES = ("focused", "disabled", "required", "selected")


def render_axtree(root: dict[str, Any]) -> str:
    lines: list[str] = []
    _render(root, 0, "", lines)
    return "\n".join(lines)


def _render(node: dict[str, Any], depth: int, parent_name: str, lines: list[str]) -> None:
    role = str(node.get("role", ""))
    name = str(node.get("name") or "")
    if role == "StaticText":
        if name and name not in parent_name:
            lines.append("\t" * depth + f"StaticText {name!r}")
        return
    lines.append("\t" * depth + _line(node, role, name))
    for child in node.get("children") or []:
        _render(child, depth + 1, name, lines)


def _line(node: dict[str, Any], role: str, name: str) -> str:
    text = role
    if name:
        text += f" {name!r}"
    if node.get("value") not in (None, ""):
        text += f" value={str(node['value'])!r}"
    bid = node.get("bid")
    if bid:
        text = f"[{bid}] {text}"
    attributes: list[str] = []
    if node.get("clickable"):
        attributes.append("clickable")
    props: dict[str, Any] = node.get("props") or {}
    for key, value in props.items():
        if key in _FLAG_PROPERTIES:
            if value:
                attributes.append(key)
        elif isinstance(value, bool):
            attributes.append(f"{key}={value}")
        else:
            attributes.append(f"{key}={value!r}")
    return ", ".join([text, *attributes])


def flatten_axtree(root: dict[str, Any]) -> dict[str, Any]:
    """A flat node list (``nodeId``/``parentId``/``childIds``) for ``axtree_object``."""
    nodes: list[dict[str, Any]] = []

    def visit(node: dict[str, Any], parent_id: str | None) -> str:
        node_id = str(len(nodes))
        entry: dict[str, Any] = {
            "nodeId": node_id,
            "parentId": parent_id,
            "role": node.get("role", ""),
            "name": node.get("name") or "",
            "childIds": [],
        }
        for key in ("bid", "value", "props"):
            if node.get(key) not in (None, "", {}):
                entry[key] = node[key]
        nodes.append(entry)
        entry["childIds"] = [visit(child, node_id) for child in node.get("children") or []]
        return node_id

    visit(root, None)
    return {"nodes": nodes}
