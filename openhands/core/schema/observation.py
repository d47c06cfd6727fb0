from enum import Enum


class ObservationType(str, Enum):
    """The ``observation`` type strings of the wire format."""

    READ = "read"
    WRITE = "write"
    EDIT = "edit"
    BROWSE = "browse"
    RUN = "run"
    RUN_IPYTHON = "run_ipython"
    CHAT = "chat"
    DELEGATE = "delegate"
    MESSAGE = "message"
    ERROR = "error"
    SUCCESS = "success"
    NULL = "null"
    THINK = "think"
    AGENT_STATE_CHANGED = "agent_state_changed"
    USER_REJECTED = "user_rejected"
    CONDENSE = "condense"
    RECALL = "recall"
    MCP = "mcp"
    DOWNLOAD = "download"
    TASK_TRACKING = "task_tracking"
