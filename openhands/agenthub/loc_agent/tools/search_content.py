"""``search_code_snippets`` and ``get_entity_contents``: look up code in the repository index."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

SEARCH_CODE_SNIPPETS_TOOL_NAME = "search_code_snippets"
GET_ENTITY_CONTENTS_TOOL_NAME = "get_entity_contents"

SearchCodeSnippetsTool: Tool = function_tool(
    name=SEARCH_CODE_SNIPPETS_TOOL_NAME,
    description=(
        "Search the repository for code related to some terms, or show the code around "
        "given lines of a file. Give `search_terms` (names of functions, classes or "
        "keywords) to search, or `line_nums` with a single file in "
        "`file_path_or_pattern` to read the code at those lines."
    ),
    properties={
        "search_terms": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Terms to search for, e.g. function or class names.",
        },
        "line_nums": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "Line numbers to show code around (needs one file path).",
        },
        "file_path_or_pattern": {
            "type": "string",
            "description": "A file path or glob restricting the search. Default `**/*.py`.",
            "default": "**/*.py",
        },
    },
    required=[],
)

GetEntityContentsTool: Tool = function_tool(
    name=GET_ENTITY_CONTENTS_TOOL_NAME,
    description=(
        "Show the full code of entities given by their id: `path/to/file.py` for a file, "
        "`path/to/file.py:Class` for a class, `path/to/file.py:Class.method` or "
        "`path/to/file.py:function` for a function."
    ),
    properties={
        "entity_names": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The entity ids to show.",
        }
    },
    required=["entity_names"],
)
