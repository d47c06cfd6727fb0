"""frontend/src/api/types.ts against the server's OpenAPI document.

types.ts is written by hand from the spec; this keeps it honest. For each REST model both
declare (the pairs in RESPONSES and REQUESTS: the UI's name, the document's name), the
`export interface` block is read with a small parser and compared with the schema:

- responses: the same field names; a field the server may send as null is nullable in
  TypeScript and the other way round; a field the schema always has is not optional (`?`);
- requests: every field the UI sends exists, and a field the server requires is sent.

What types.ts declares on purpose beyond the document is listed in UI_ONLY, each with why.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from openhands.server.app import create_app

TYPES_TS = Path(__file__).resolve().parents[3] / "frontend" / "src" / "api" / "types.ts"

# UI interface → OpenAPI schema, for models served as REST responses (error bodies included).
RESPONSES = {
    "ConversationInfo": "ConversationInfo",
    "ConversationPage": "ConversationInfoResultSet",
    "EventPage": "EventPage",
    "ConversationResponse": "ConversationResponse",
    "SettingsResponse": "SettingsResponse",
    "SecretList": "CustomSecretNames",
    "CustomSecret": "CustomSecretName",
    "Repository": "Repository",
    "Branch": "Branch",
    "BranchPage": "PaginatedBranchesResponse",
    "SuggestedTask": "SuggestedTask",
    "GitChange": "GitChange",
    "GitDiff": "GitDiff",
    "SelectFileResponse": "FileContent",
    "UploadFilesResponse": "UploadResult",
    "VSCodeUrlResponse": "VSCodeUrlResponse",
    "VSCodeImageStatus": "VSCodeImageStatus",
    "WebHostsResponse": "WebHostsResponse",
    "MicroagentInfo": "MicroagentInfo",
    "MicroagentsResponse": "MicroagentsResponse",
    "TrajectoryResponse": "TrajectoryResponse",
    "ConversationConfigResponse": "RuntimeConfigResponse",
    "ErrorBody": "ErrorTextBody",
    "StatusErrorBody": "StatusErrorBody",
}

# UI interface → OpenAPI schema, for request bodies the UI sends.
REQUESTS = {
    "CreateConversationRequest": "InitSessionRequest",
    "Settings": "Settings",
    "MessageBody": "AddMessageRequest",
    "CreateSecretRequest": "CustomSecretCreate",
    "UpdateSecretRequest": "CustomSecretUpdate",
    "AddGitProvidersRequest": "ProviderTokensRequest",
    "ProviderToken": "ProviderTokenInput",
    "McpConfig": "MCPConfig",
}

# (interface, field) that types.ts declares beyond the document, and why.
UI_ONLY = {
    ("ConversationInfo", "accumulated_cost"): (
        "not in 0.59's ConversationInfo (nor ours): the card shows a cost only when a server "
        "adds it"
    ),
    ("VSCodeUrlResponse", "error"): "the route's 500 body adds `error` to the model's field",
    ("WebHostsResponse", "error"): "the route's 500 body adds `error` to the model's field",
    ("TrajectoryResponse", "error"): "the route's 500 body adds `error` to the model's field",
}


@dataclass(frozen=True)
class TsField:
    name: str
    optional: bool
    type: str

    @property
    def nullable(self) -> bool:
        return "null" in _top_level_union(self.type)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where no bracket of any kind is open."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "{[(<":
            depth += 1
        elif char in "}])>":
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _top_level_union(type_text: str) -> list[str]:
    return _split_top_level(type_text, "|")


def _block_after(text: str, start: int) -> str:
    """The text between the brace at or after ``start`` and the brace that closes it."""
    opening = text.index("{", start)
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[opening + 1 : index]
    raise ValueError("unbalanced braces")


def parse_interfaces(source: str) -> dict[str, dict[str, TsField]]:
    """Every ``export interface`` of ``source``: its fields, those of what it extends first."""
    text = _strip_comments(source)
    found: dict[str, tuple[str | None, dict[str, TsField]]] = {}
    header = re.compile(r"export interface (\w+)(?:\s+extends\s+(\w+))?\s*\{")
    for match in header.finditer(text):
        fields: dict[str, TsField] = {}
        for member in _split_top_level(_block_after(text, match.start()), ";"):
            name, _, type_text = member.partition(":")
            name = name.strip()
            optional = name.endswith("?")
            name = name.rstrip("?").strip()
            fields[name] = TsField(name, optional, type_text.strip())
        found[match.group(1)] = (match.group(2), fields)

    def resolved(name: str) -> dict[str, TsField]:
        parent, fields = found[name]
        return {**(resolved(parent) if parent in found else {}), **fields}

    return {name: resolved(name) for name in found}


def _schema_nullable(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return (
        schema.get("nullable") is True
        or schema.get("type") == "null"
        or any(_schema_nullable(option) for option in options)
    )


@functools.cache
def _schemas() -> dict[str, Any]:
    document: dict[str, Any] = create_app().openapi()
    schemas: dict[str, Any] = document["components"]["schemas"]
    return schemas


@functools.cache
def _interfaces() -> dict[str, dict[str, TsField]]:
    return parse_interfaces(TYPES_TS.read_text(encoding="utf-8"))


def response_drift(ui: str, fields: dict[str, TsField], schema: dict[str, Any]) -> list[str]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    drift = [
        f"{ui}.{name}: not in the server's model"
        for name in sorted(set(fields) - set(properties))
        if (ui, name) not in UI_ONLY
    ]
    drift += [
        f"{ui}.{name}: sent by the server, missing here"
        for name in sorted(set(properties) - set(fields))
    ]
    for name in sorted(set(fields) & set(properties)):
        field, nullable = fields[name], _schema_nullable(properties[name])
        if field.nullable != nullable:
            drift.append(f"{ui}.{name}: nullable here {field.nullable}, on the wire {nullable}")
        if field.optional and name in required:
            drift.append(f"{ui}.{name}: optional here, always sent")
    return drift


def request_drift(ui: str, fields: dict[str, TsField], schema: dict[str, Any]) -> list[str]:
    properties: dict[str, Any] = schema.get("properties", {})
    drift = [
        f"{ui}.{name}: the server has no such field"
        for name in sorted(set(fields) - set(properties))
    ]
    for name in sorted(schema.get("required", [])):
        if name not in fields or fields[name].optional:
            drift.append(f"{ui}.{name}: required by the server, not always sent")
    return drift


@pytest.mark.parametrize("ui", sorted(RESPONSES))
def test_response_models_match_the_openapi_document(ui: str) -> None:
    assert response_drift(ui, _interfaces()[ui], _schemas()[RESPONSES[ui]]) == []


@pytest.mark.parametrize("ui", sorted(REQUESTS))
def test_request_bodies_match_the_openapi_document(ui: str) -> None:
    assert request_drift(ui, _interfaces()[ui], _schemas()[REQUESTS[ui]]) == []


def test_every_pair_still_names_both_sides() -> None:
    """A renamed interface or schema fails here instead of silently leaving the check."""
    pairs = {**RESPONSES, **REQUESTS}
    assert sorted(set(pairs) - set(_interfaces())) == []
    assert sorted(set(pairs.values()) - set(_schemas())) == []
    assert {ui for ui, _ in UI_ONLY} <= set(RESPONSES)


def test_every_model_named_alike_is_compared() -> None:
    """An interface named like a schema of the document is one of the pairs above."""
    alike = set(_interfaces()) & set(_schemas())
    assert sorted(alike - set(RESPONSES) - set(REQUESTS)) == []


# --- the checker itself -------------------------------------------------------------------

SAMPLE = """
/** A doc comment { with a brace } that is not a field. */
export interface Base {
  id: string;
}
export interface Thing extends Base {
  // a line comment
  name: string | null;
  tags?: { key: string; value: string | null }[];
  kind: "a" | "b";
}
"""


def test_the_parser_reads_fields_nesting_and_extends() -> None:
    thing = parse_interfaces(SAMPLE)["Thing"]
    assert list(thing) == ["id", "name", "tags", "kind"]
    assert thing["name"].nullable and not thing["name"].optional
    assert thing["tags"].optional and not thing["tags"].nullable
    assert thing["tags"].type == "{ key: string; value: string | null }[]"


def test_the_checker_reports_each_kind_of_drift() -> None:
    fields = parse_interfaces(SAMPLE)["Thing"]
    schema = {
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "tags": {"type": "array"},
            "extra": {"type": "integer"},
        },
        "required": ["id", "tags"],
    }
    assert response_drift("Thing", fields, schema) == [
        "Thing.kind: not in the server's model",
        "Thing.extra: sent by the server, missing here",
        "Thing.name: nullable here True, on the wire False",
        "Thing.tags: optional here, always sent",
    ]
    assert request_drift("Thing", fields, schema) == [
        "Thing.kind: the server has no such field",
        "Thing.tags: required by the server, not always sent",
    ]
