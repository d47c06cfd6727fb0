from enum import Enum


class AgentState(str, Enum):
    LOADING = "loading"
    RUNNING = "running"
    AWAITING_USER_INPUT = "awaiting_user_input"
    PAUSED = "paused"
    STOPPED = "stopped"
    FINISHED = "finished"
    REJECTED = "rejected"
    ERROR = "error"
    AWAITING_USER_CONFIRMATION = "awaiting_user_confirmation"
    USER_CONFIRMED = "user_confirmed"
    USER_REJECTED = "user_rejected"
    RATE_LIMITED = "rate_limited"
