"""``explore_tree_structure``: walk the dependency graph of the repository's code."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

EXPLORE_TREE_STRUCTURE_TOOL_NAME = "explore_tree_structure"

ExploreTreeStructureTool: Tool = function_tool(
    name=EXPLORE_TREE_STRUCTURE_TOOL_NAME,
    description=(
        "Show how code entities relate: starting from some entities (files, classes, "
        "functions), follow what they contain, import, call or inherit from (downstream) "
        "or what does so to them (upstream), up to a depth. Entity ids look like "
        "`path/to/file.py:Class.method`; a directory path explores the file tree."
    ),
    properties={
        "start_entities": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Entity ids to start from.",
        },
        "direction": {
            "type": "string",
            "enum": ["upstream", "downstream", "both"],
            "default": "downstream",
            "description": "Which way to follow the relations.",
        },
        "traversal_depth": {
            "type": "integer",
            "default": 2,
            "description": "How many hops to follow; -1 for no limit.",
        },
        "entity_type_filter": {
            "type": "array",
            "items": {"type": "string", "enum": ["directory", "file", "class", "function"]},
            "description": "Only show entities of these types.",
        },
        "dependency_type_filter": {
            "type": "array",
            "items": {"type": "string", "enum": ["contains", "imports", "invokes", "inherits"]},
            "description": "Only follow relations of these types.",
        },
    },
    required=["start_entities"],
)
