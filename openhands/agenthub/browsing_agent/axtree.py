"""Rendering a BrowserGym accessibility tree as indented text for the prompt."""

from __future__ import annotations

from typing import Any


def flatten_axtree(axtree: dict[str, Any], visible_only: bool = True) -> str:
    """``[bid] role 'name'`` lines, indented by depth. Ignored nodes are skipped."""
    nodes = axtree.get("nodes") or []
    if not nodes:
        return ""
    by_id = {node.get("nodeId"): node for node in nodes}
    lines: list[str] = []

    def visit(node: dict[str, Any], depth: int) -> None:
        role = _value(node.get("role"))
        name = _value(node.get("name"))
        ignored = node.get("ignored") or (role in ("none", "generic", "") and not name)
        hidden = visible_only and node.get("visible") is False
        next_depth = depth
        if not ignored and not hidden:
            bid = node.get("browsergym_id")
            prefix = f"[{bid}] " if bid is not None else ""
            label = f" {name!r}" if name else ""
            lines.append(f"{'  ' * depth}{prefix}{role}{label}")
            next_depth = depth + 1
        for child_id in node.get("childIds") or []:
            child = by_id.get(child_id)
            if child is not None:
                visit(child, next_depth)

    visit(nodes[0], 0)
    return "\n".join(lines)


def _value(field: Any) -> str:
    if isinstance(field, dict):
        return str(field.get("value", ""))
    return "" if field is None else str(field)
