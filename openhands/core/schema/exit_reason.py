from enum import Enum


class ExitReason(str, Enum):
    INTENTIONAL = "intentional"
    INTERRUPTED = "interrupted"
    ERROR = "error"
