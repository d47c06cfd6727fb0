"""``execute_ipython_cell``: run Python in a Jupyter kernel."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import (
    Tool,
    function_tool,
    security_risk_property,
)

EXECUTE_IPYTHON_TOOL_NAME = "execute_ipython_cell"

_DESCRIPTION = """\
Run a cell of Python code in an IPython kernel. Variables, imports and functions persist \
from one cell to the next, and the working directory is shared with the shell. IPython \
magics work, e.g. `%pip install <package>` to install a package into the kernel. Define \
a variable before you use it, and import every module you need."""

IPythonTool: Tool = function_tool(
    name=EXECUTE_IPYTHON_TOOL_NAME,
    description=_DESCRIPTION,
    properties={
        "code": {"type": "string", "description": "The Python code of the cell."},
        "security_risk": security_risk_property(),
    },
    required=["code", "security_risk"],
)
