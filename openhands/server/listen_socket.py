"""Socket.IO handlers: connect (refusals, replay, join), user actions, disconnect (§7)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import socketio
from socketio.exceptions import ConnectionRefusedError

from openhands.integrations.service_types import ProviderType
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.conversation_manager import ConversationManagerError
from openhands.server.errors import ApiError
from openhands.server.models.socket import ErrorPayload
from openhands.server.services.conversation_ids import check_conversation_id
from openhands.server.services.conversation_service import ConversationService
from openhands.server.session.delivery import OH_EVENT
from openhands.server.session.user_actions import InvalidUserActionError
from openhands.server.shared import module_getattr

logger = logging.getLogger(__name__)

SETTINGS_NOT_FOUND = {"msg_id": "CONFIGURATION$SETTINGS_NOT_FOUND"}


class ConnectQuery:
    """The handshake's query parameters (server-api §7.2)."""

    def __init__(self, query_string: str) -> None:
        query = parse_qs(query_string, keep_blank_values=True)
        self.conversation_id = (query.get("conversation_id") or [""])[0] or None
        keys = query.get("session_api_key")
        self.session_api_key: str | None = keys[0] if keys else None
        self.latest_event_id = _int_or(-1, (query.get("latest_event_id") or ["-1"])[0])
        self.providers_set: list[ProviderType] = []
        for value in query.get("providers_set", []):
            for name in value.split(","):
                name = name.strip()
                if not name:
                    continue
                try:
                    self.providers_set.append(ProviderType(name))
                except ValueError:
                    message = f"Invalid provider in providers_set: {name}"
                    raise ConnectionRefusedError(message) from None


def _int_or(default: int, text: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


def _headers(environ: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    headers = {
        key[5:].replace("_", "-").lower(): str(value)
        for key, value in environ.items()
        if key.startswith("HTTP_")
    }
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:
        pass
    return headers, {name: morsel.value for name, morsel in jar.items()}


if TYPE_CHECKING:  # served by __getattr__
    from openhands.server.conversation_manager.conversation_manager import ConversationManager

    conversation_manager: ConversationManager


# ``conversation_manager``: the manager of this process, for the reference's module-level
# handlers below (the compatibility adapter's; the app's handlers use their own app's).
__getattr__ = module_getattr(__name__, ("conversation_manager",))


async def oh_user_action(connection_id: str, data: dict[str, Any]) -> None:
    """The reference's module-level handler: hand ``data`` (one action object) from
    ``connection_id`` to this module's ``conversation_manager``. The app's own socket
    handler (``register_socket_handlers``) does the same for its app and also answers
    malformed input and unknown connections with an error payload (§7.6)."""
    manager = sys.modules[__name__].conversation_manager
    await manager.send_to_event_stream(connection_id, data)


async def oh_action(connection_id: str, data: dict[str, Any]) -> None:
    """Legacy name of ``oh_user_action``; identical behaviour."""
    await oh_user_action(connection_id, data)


def register_socket_handlers(
    sio: socketio.AsyncServer, services: Callable[[], AppServices]
) -> None:
    async def connect(connection_id: str, environ: dict[str, Any], auth: Any = None) -> None:
        app = services()
        query = ConnectQuery(environ.get("QUERY_STRING", ""))
        if not query.conversation_id:
            raise ConnectionRefusedError("No conversation_id in query params")
        if not app.session_key_ok(query.session_api_key):
            raise ConnectionRefusedError("invalid_session_api_key")
        conversation_id = query.conversation_id
        headers, cookies = _headers(environ)
        token = auth.get("token") if isinstance(auth, dict) else None
        user_auth = await app.user_auth_factory.create(headers, cookies, token)
        conversations = ConversationService(app, user_auth)
        try:
            check_conversation_id(conversation_id)
            owner = await conversations.ensure_socket_access(conversation_id)
        except ApiError as error:
            raise ConnectionRefusedError(str(error)) from None
        settings = await user_auth.get_user_settings()
        if settings is None:
            raise ConnectionRefusedError("Settings not found", SETTINGS_NOT_FOUND)
        metadata = await conversations.load_metadata(conversation_id)
        init_data = await conversations.init_data(
            settings,
            query.providers_set,
            selected_repository=metadata.selected_repository if metadata else None,
            selected_branch=metadata.selected_branch if metadata else None,
            git_provider=metadata.git_provider if metadata else None,
        )
        try:
            await app.conversation_manager.join_conversation(
                conversation_id, connection_id, init_data, owner, query.latest_event_id
            )
        except OSError as error:
            raise ConnectionRefusedError(f"Failed to access conversation events: {error}") from None
        except Exception:
            logger.exception("Joining %s failed", conversation_id)
            raise ConnectionRefusedError("Failed to join conversation") from None

    async def reply_error(connection_id: str, message: str) -> None:
        payload = ErrorPayload(message=message).model_dump(exclude_none=True)
        await sio.emit(OH_EVENT, payload, to=connection_id)

    async def user_action(connection_id: str, *args: Any) -> None:
        # python-socketio passes the event's arguments as they came: none at all, one, or
        # several. Anything but exactly one JSON object is answered, never dropped (§7.6).
        app = services()
        try:
            if len(args) != 1:
                raise InvalidUserActionError(
                    f"An action is one JSON object; got {len(args)} arguments"
                )
            data = args[0]
            if not isinstance(data, dict):
                raise InvalidUserActionError("An action must be a JSON object")
            await app.conversation_manager.send_to_event_stream(connection_id, data)
        except (ConversationManagerError, InvalidUserActionError) as error:
            await reply_error(connection_id, str(error))
        except Exception as error:
            logger.exception("Handling an action from %s failed", connection_id)
            await reply_error(connection_id, f"Failed to handle the action: {error}")

    async def disconnect(connection_id: str, *_reason: Any) -> None:
        await services().conversation_manager.disconnect_from_session(connection_id)

    sio.on("connect", connect)
    sio.on("oh_user_action", user_action)
    sio.on("oh_action", user_action)
    sio.on("disconnect", disconnect)
