"""CodeActAgent's tools, one module per tool (OpenAI function-tool schemas)."""

from openhands.agenthub.codeact_agent.tools._schema import (
    RISK_LEVELS,
    Tool,
    security_risk_property,
    tool_name,
)
from openhands.agenthub.codeact_agent.tools.bash import (
    EXECUTE_BASH_TOOL_NAME,
    create_cmd_run_tool,
)
from openhands.agenthub.codeact_agent.tools.browser import BROWSER_TOOL_NAME, BrowserTool
from openhands.agenthub.codeact_agent.tools.condensation_request import (
    CONDENSATION_REQUEST_TOOL_NAME,
    CondensationRequestTool,
)
from openhands.agenthub.codeact_agent.tools.finish import FINISH_TOOL_NAME, FinishTool
from openhands.agenthub.codeact_agent.tools.ipython import (
    EXECUTE_IPYTHON_TOOL_NAME,
    IPythonTool,
)
from openhands.agenthub.codeact_agent.tools.llm_based_edit import (
    LLM_BASED_EDIT_TOOL_NAME,
    LLMBasedFileEditTool,
)
from openhands.agenthub.codeact_agent.tools.str_replace_editor import (
    STR_REPLACE_EDITOR_TOOL_NAME,
    create_str_replace_editor_tool,
)
from openhands.agenthub.codeact_agent.tools.task_tracker import (
    TASK_TRACKER_TOOL_NAME,
    create_task_tracker_tool,
)
from openhands.agenthub.codeact_agent.tools.think import THINK_TOOL_NAME, ThinkTool

__all__ = [
    "BROWSER_TOOL_NAME",
    "CONDENSATION_REQUEST_TOOL_NAME",
    "EXECUTE_BASH_TOOL_NAME",
    "EXECUTE_IPYTHON_TOOL_NAME",
    "FINISH_TOOL_NAME",
    "LLM_BASED_EDIT_TOOL_NAME",
    "RISK_LEVELS",
    "STR_REPLACE_EDITOR_TOOL_NAME",
    "TASK_TRACKER_TOOL_NAME",
    "THINK_TOOL_NAME",
    "BrowserTool",
    "CondensationRequestTool",
    "FinishTool",
    "IPythonTool",
    "LLMBasedFileEditTool",
    "ThinkTool",
    "Tool",
    "create_cmd_run_tool",
    "create_str_replace_editor_tool",
    "create_task_tracker_tool",
    "security_risk_property",
    "tool_name",
]
