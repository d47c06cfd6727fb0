"""``edit_file``: rewrite (part of) a file from a draft; an LLM merges it into the file."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import (
    Tool,
    function_tool,
    security_risk_property,
)

LLM_BASED_EDIT_TOOL_NAME = "edit_file"

_DESCRIPTION = """\
Edit a file by giving a draft of its new content; another model merges the draft into \
the file.

* To create a file, or to replace all of a short file, give the full new content.
* To change part of a larger file, give `start` and `end` (1-based, inclusive) and a \
draft of only those lines. Parts that stay the same may be left out and replaced by a \
comment such as `# ... existing code ...`; keep a few unchanged lines around each change \
so the merge can place it.
* Use `start=-1` to append to the end of the file.
* Keep edits small: several small edits merge more reliably than one large one."""

LLMBasedFileEditTool: Tool = function_tool(
    name=LLM_BASED_EDIT_TOOL_NAME,
    description=_DESCRIPTION,
    properties={
        "path": {"type": "string", "description": "Absolute path of the file."},
        "content": {
            "type": "string",
            "description": "Draft of the new content for the edited range.",
        },
        "start": {
            "type": "integer",
            "description": "First line of the range to edit (1-based, inclusive). Default 1.",
        },
        "end": {
            "type": "integer",
            "description": "Last line of the range (1-based, inclusive). Default -1: end of file.",
        },
        "security_risk": security_risk_property(),
    },
    required=["path", "content", "security_risk"],
)
