"""Domain errors of the web server and the one table that turns them into HTTP responses.

Each error knows which of the spec's body styles it answers with (`detail`, `error`,
`status`, `message` or a bare JSON string). Routes and services raise; they never build
error responses themselves. Third-party errors that escape a route (storage, page ids)
are mapped here too, so the whole mapping is visible in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field

from openhands.integrations.service_types import (
    AuthenticationError,
    MicroagentParseError,
    RateLimitError,
    ResourceNotFoundError,
    UnknownException,
)
from openhands.server.types import LLMAuthenticationError, MissingSettingsError
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


class InvalidConversationIdError(ApiError, HTTPException):
    """Also an ``HTTPException`` (400, ``detail`` = the message), as the reference's
    ``openhands.server.utils.validate_conversation_id`` raises; the app answers it through
    the ``ApiError`` handler with the same ``{"detail": ...}`` body."""

    status_code = 400

    def __init__(self, detail: str) -> None:
        ApiError.__init__(self, detail)
        HTTPException.__init__(self, status_code=400, detail=detail)

    def __str__(self) -> str:
        return str(self.detail)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.detail!r})"


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


class SettingsRequiredError(StatusError, MissingSettingsError):
    status_code = 400
    msg_id = "CONFIGURATION$SETTINGS_NOT_FOUND"
    message = "Settings not found"


class LLMKeyMissingError(StatusError, LLMAuthenticationError):
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


class ProviderRequestError(PlainTextError):
    """The provider answered with an error (or not at all): 502 with a string body (0.59
    answered 500; the failure is upstream, not this server's)."""

    def __init__(self, text: str, status: int = 502) -> None:
        super().__init__(text, status)


# What the git-provider services (``openhands.integrations``) raise when a provider fails.
PROVIDER_FAILURES: tuple[type[ValueError], ...] = (
    AuthenticationError,
    ResourceNotFoundError,
    RateLimitError,
    UnknownException,
    MicroagentParseError,
)


def provider_failure(exc: Exception) -> PlainTextError:
    """The server's answer to a provider failure, always the message as a bare string:
    401 when the provider refused the token, 404 when it found nothing there, else 502
    (rate limits, 5xx answers, no answer, a file that cannot be parsed)."""
    text = str(exc)
    if isinstance(exc, AuthenticationError):
        return ProviderAuthError(text) if text else ProviderAuthError()
    text = text or f"The git provider failed ({type(exc).__name__})"
    if isinstance(exc, ResourceNotFoundError):
        return ProviderRequestError(text, 404)
    return ProviderRequestError(text)


class RepositoryAccessError(PlainTextError):
    def __init__(self, repository: str) -> None:
        super().__init__(f"Unable to access repo {repository}", 401)


# --- the table ----------------------------------------------------------------------------

Handler = Callable[[Request, Exception], JSONResponse]


def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status_code)


def _provider_failure(_: Request, exc: Exception) -> JSONResponse:
    error = provider_failure(exc)
    return JSONResponse(error.body(), status_code=error.status_code)


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
    **{failure: _provider_failure for failure in PROVIDER_FAILURES},
}


# --- the error bodies in the OpenAPI document -----------------------------------------------
#
# One model per body style; routes declare what they answer with the helpers below (shared
# dicts such as ``GUARD_RESPONSES`` for whole routers), so the document lists the real error
# statuses instead of FastAPI's 200/422 alone.


class DetailErrorBody(BaseModel):
    """`detail` style: FastAPI's HTTP errors and this server's guards."""

    detail: str = Field(description="What went wrong")


class ErrorTextBody(BaseModel):
    """`error` style; some routes add their own keys (`success`, `hosts`, `vscode_url`, …)."""

    model_config = ConfigDict(extra="allow")
    error: str = Field(description="What went wrong")


class StatusErrorBody(BaseModel):
    """`status` style: `{"status": "error", "message", "msg_id"}` (the frontend translates
    `msg_id`); `/start` and `/stop` carry `conversation_id` instead of `msg_id`."""

    status: str = Field(default="error", description='Always "error"')
    message: str | None = None
    msg_id: str | None = Field(default=None, description="Translation key for the frontend")
    conversation_id: str | None = None


class MessageErrorBody(BaseModel):
    """`message` style (custom secrets, the rate limiter)."""

    message: str


ResponseDoc = dict[str, Any]
Responses = dict[int | str, ResponseDoc]


def detail(description: str) -> ResponseDoc:
    return {"model": DetailErrorBody, "description": description}


def error(description: str) -> ResponseDoc:
    return {"model": ErrorTextBody, "description": description}


def status_error(description: str) -> ResponseDoc:
    return {"model": StatusErrorBody, "description": description}


def message(description: str) -> ResponseDoc:
    return {"model": MessageErrorBody, "description": description}


def text(description: str) -> ResponseDoc:
    """A bare JSON string body."""
    return {
        "description": description,
        "content": {"application/json": {"schema": {"type": "string"}}},
    }


# Shared sets, declared once per router (or added by the app for every route they apply to).
GUARD_RESPONSES: Responses = {
    401: detail(
        "`X-Session-API-Key` missing or wrong (when `SESSION_API_KEY` is set), or no valid "
        "token in multi-user mode"
    ),
}
CONVERSATION_ID_RESPONSES: Responses = {
    400: detail("Invalid conversation id (too long, path or control characters)"),
    403: detail("The conversation belongs to another user"),
}
ATTACHED_RESPONSES: Responses = {
    404: detail("No such conversation, or its sandbox cannot be reached"),
}
BODY_RESPONSES: Responses = {413: detail("Request body too large")}
RATE_LIMIT_RESPONSES: Responses = {429: message("Too many requests (header `Retry-After`)")}
GIT_PROVIDER_RESPONSES: Responses = {
    400: text("A provider this server does not serve, or a bad parameter"),
    401: text("No provider token stored, or the provider refused it"),
    404: text("The provider found nothing there"),
    502: text("The provider could not be reached or answered with an error"),
}


def install_error_handlers(app: FastAPI) -> None:
    for exc_type, handler in ERROR_TABLE.items():
        app.add_exception_handler(exc_type, handler)  # type: ignore[arg-type]


def _table_handler(exc: Exception) -> Handler | None:
    for cls in type(exc).__mro__:
        handler = ERROR_TABLE.get(cls)
        if handler is not None:
            return handler
    return None


class MappedErrorsRoute(APIRoute):
    """A route that answers the table's errors itself (raised by the route or by one of
    its dependencies), so a router gives the same answers when it is mounted in an app
    that did not call ``install_error_handlers`` (scripts and tests mount single routers
    in a bare ``FastAPI()``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[None, None, Response]]:
        handle = super().get_route_handler()

        async def handle_mapped(request: Request) -> Response:
            try:
                return await handle(request)
            except Exception as exc:
                handler = _table_handler(exc)
                if handler is None:
                    raise
                return handler(request, exc)

        return handle_mapped
