"""LocAgent's code-search tools (run as functions in the sandbox's IPython kernel)."""

from openhands.agenthub.loc_agent.tools.explore_structure import (
    EXPLORE_TREE_STRUCTURE_TOOL_NAME,
    ExploreTreeStructureTool,
)
from openhands.agenthub.loc_agent.tools.search_content import (
    GET_ENTITY_CONTENTS_TOOL_NAME,
    SEARCH_CODE_SNIPPETS_TOOL_NAME,
    GetEntityContentsTool,
    SearchCodeSnippetsTool,
)

__all__ = [
    "EXPLORE_TREE_STRUCTURE_TOOL_NAME",
    "GET_ENTITY_CONTENTS_TOOL_NAME",
    "SEARCH_CODE_SNIPPETS_TOOL_NAME",
    "ExploreTreeStructureTool",
    "GetEntityContentsTool",
    "SearchCodeSnippetsTool",
]
