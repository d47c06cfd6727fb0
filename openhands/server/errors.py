"""Domain errors of the web server and the one table that turns them into HTTP responses.

Each error knows which of the spec's body styles it answers with (`detail`, `error`,
`status`, `message` or a bare JSON string). Routes and services raise; they never build
error responses themselves. Third-party errors that escape a route (storage, page ids)
are mapped here too, so the whole mapping is visible in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from openhands.storage.conversation.paging import InvalidPageIdError
from openhands.storage.data_models.user_secrets import (
    CustomSecretExistsError,
    CustomSecretNotFoundError,
)


class ApiError(Exception):
    """An error whose HTTP response the spec defines."""

    status_code = 500

    def body(self) -> Any:
        return {"detail": str(self)}


# --- `detail` bodies ----------------------------------------------------------------------


class NotAuthenticatedError(ApiError):
    status_code = 401

    def __init__(self, detail: str = "Unauthorized") -> None:
        super().__init__(detail)


class InvalidConversationIdError(ApiError):
    status_code = 400


class ConversationNotFoundError(ApiError):
    """A per-conversation route for a conversation that does not exist (or has no sandbox)."""

    status_code = 404

    def __init__(self, conversation_id: str) -> None:
        super().__init__(f"Conversation {conversation_id} not found")
        self.conversation_id = conversation_id


class ConversationForbiddenError(ApiError):
    """The conversation belongs to another user."""

    status_code = 403

    def __init__(self, conversation_id: str) -> None:
        super().__init__(f"Permission denied for conversation {conversation_id}")


class InvalidLimitError(ApiError):
    status_code = 400

    def __init__(self) -> None:
        super().__init__("Invalid limit")


class GoneError(ApiError):
    status_code = 410

    def body(self) -> Any:
        return {"error": str(self)}


# --- `status` bodies ({"status": "error", "message", "msg_id"}) ------------------------------


class StatusError(ApiError):
    msg_id = ""
    message = ""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)

    def body(self) -> Any:
        return {"status": "error", "message": str(self), "msg_id": self.msg_id}


class SettingsRequiredError(StatusError):
    status_code = 400
    msg_id = "CONFIGURATION$SETTINGS_NOT_FOUND"
    message = "Settings not found"


class LLMKeyMissingError(StatusError):
    status_code = 400
    msg_id = "STATUS$ERROR_LLM_AUTHENTICATION"
    message = "Error authenticating with the LLM provider. Please check your API key"


class ConversationMissingError(StatusError):
    status_code = 404
    msg_id = "CONVERSATION$NOT_FOUND"
    message = "Conversation not found"


class PermissionDeniedError(StatusError):
    status_code = 403
    msg_id = "AUTHORIZATION$PERMISSION_DENIED"
    message = "Permission denied: You can only update your own conversations"


class ConversationUpdateError(StatusError):
    status_code = 500
    msg_id = "CONVERSATION$UPDATE_ERROR"
    message = "Failed to update conversation"


class ConversationStateError(ApiError):
    """`/start` and `/stop` failures: {"status": "error", "conversation_id", "message"?}."""

    def __init__(self, conversation_id: str, message: str | None = None, status: int = 500):
        super().__init__(message or "")
        self.conversation_id = conversation_id
        self.message = message
        self.status_code = status

    def body(self) -> Any:
        body: dict[str, Any] = {"status": "error", "conversation_id": self.conversation_id}
        if self.message is not None:
            body["message"] = self.message
        return body


# --- `error` bodies -----------------------------------------------------------------------


class ErrorBodyError(ApiError):
    """Answered as {"error": "<text>"} plus any extra keys."""

    def __init__(self, text: str, status: int = 500, **extra: Any) -> None:
        super().__init__(text)
        self.status_code = status
        self.extra = extra

    def body(self) -> Any:
        return {**self.extra, "error": str(self)}


class SettingsNotFoundError(ErrorBodyError):
    def __init__(self) -> None:
        super().__init__("Settings not found", 404)


class InvalidProviderTokenError(ErrorBodyError):
    def __init__(self, provider: str) -> None:
        super().__init__(f"Invalid token. Please make sure it is a valid {provider} token.", 401)


# --- bare string bodies -------------------------------------------------------------------


class PlainTextError(ApiError):
    """Answered with the message as a bare JSON string."""

    def __init__(self, text: str, status: int = 500) -> None:
        super().__init__(text)
        self.status_code = status

    def body(self) -> Any:
        return str(self)


class ProviderTokenRequiredError(PlainTextError):
    def __init__(self, text: str = "Git provider token required. (such as GitHub).") -> None:
        super().__init__(text, 401)


class ProviderAuthError(PlainTextError):
    """The git provider rejected the caller's token."""

    def __init__(self, text: str = "Git provider token required. (such as GitHub).") -> None:
        super().__init__(text, 401)


class RepositoryAccessError(PlainTextError):
    def __init__(self, repository: str) -> None:
        super().__init__(f"Unable to access repo {repository}", 401)


# --- the table ----------------------------------------------------------------------------

Handler = Callable[[Request, Exception], JSONResponse]


def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status_code)


def _detail(status: int) -> Handler:
    def handle(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=status)

    return handle


def _message(status: int) -> Handler:
    def handle(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"message": str(exc)}, status_code=status)

    return handle


def _error(status: int) -> Handler:
    def handle(_: Request, exc: Exception) -> JSONResponse:
        text = exc.args[0] if exc.args else str(exc)
        return JSONResponse({"error": str(text)}, status_code=status)

    return handle


ERROR_TABLE: dict[type[Exception], Handler] = {
    ApiError: _api_error,
    InvalidPageIdError: _detail(400),
    CustomSecretExistsError: _message(400),
    CustomSecretNotFoundError: _error(404),
}


def install_error_handlers(app: FastAPI) -> None:
    for exc_type, handler in ERROR_TABLE.items():
        app.add_exception_handler(exc_type, handler)  # type: ignore[arg-type]
