"""The status ids a conversation reports (runtime.md, server-api.md) and how they are reported."""

from collections.abc import Callable
from enum import Enum


class RuntimeStatus(str, Enum):
    """Status ids reported through the runtime status callback (and shown by the UI)."""

    STOPPED = "STATUS$STOPPED"
    BUILDING_RUNTIME = "STATUS$BUILDING_RUNTIME"
    STARTING_RUNTIME = "STATUS$STARTING_RUNTIME"
    # Not in 0.59: a new conversation took an idle sandbox of the warm pool, or a stored
    # conversation's own stopped sandbox is being started again.
    CLAIMING_WARM_RUNTIME = "STATUS$CLAIMING_WARM_RUNTIME"
    RESTARTING_RUNTIME = "STATUS$RESTARTING_RUNTIME"
    RUNTIME_STARTED = "STATUS$RUNTIME_STARTED"
    SETTING_UP_WORKSPACE = "STATUS$SETTING_UP_WORKSPACE"
    SETTING_UP_GIT_HOOKS = "STATUS$SETTING_UP_GIT_HOOKS"
    READY = "STATUS$READY"
    ERROR = "STATUS$ERROR"
    ERROR_RUNTIME_DISCONNECTED = "STATUS$ERROR_RUNTIME_DISCONNECTED"
    ERROR_LLM_AUTHENTICATION = "STATUS$ERROR_LLM_AUTHENTICATION"
    ERROR_LLM_SERVICE_UNAVAILABLE = "STATUS$ERROR_LLM_SERVICE_UNAVAILABLE"
    ERROR_LLM_INTERNAL_SERVER_ERROR = "STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR"
    ERROR_LLM_OUT_OF_CREDITS = "STATUS$ERROR_LLM_OUT_OF_CREDITS"
    ERROR_LLM_CONTENT_POLICY_VIOLATION = "STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION"
    AGENT_RATE_LIMITED_STOPPED_MESSAGE = "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
    GIT_PROVIDER_AUTHENTICATION_ERROR = "STATUS$GIT_PROVIDER_AUTHENTICATION_ERROR"
    LLM_RETRY = "STATUS$LLM_RETRY"
    ERROR_MEMORY = "STATUS$ERROR_MEMORY"


# How the runtime, memory and controller report a status: ``(level, status, message)``,
# level "info" or "error". The one declaration; every layer above imports it from here.
StatusCallback = Callable[[str, RuntimeStatus, str], None]
