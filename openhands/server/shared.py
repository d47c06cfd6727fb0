"""Compatibility path: the reference's ``openhands.server.shared`` module-level objects.

The project keeps these objects on ``AppServices`` (built by the app's lifespan and reached
through typed dependencies); this module serves them under the reference's names:

- while an app runs in this process, each name is that app's object
  (``app_services.running_services()``);
- otherwise each is built on first access from ``config.toml`` + environment and kept:
  ``config`` (``load_app_config()``: the loaded config plus its JWT secret),
  ``server_config`` (``load_server_config()``), ``file_store``, ``sio`` (the Socket.IO
  server of ``openhands.server.app.app``), ``monitoring_listener`` and
  ``conversation_manager`` (from the extension points; the manager is not entered, so it
  runs no cleanup task).

``SettingsStoreImpl``, ``SecretsStoreImpl`` and ``ConversationStoreImpl`` are the classes
the server config names (``get_impl``). Nothing is built at import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from openhands.server.app_services import AppServices, running_services

if TYPE_CHECKING:  # the names __getattr__ serves, typed for checkers
    import socketio

    from openhands.core.config import OpenHandsConfig
    from openhands.server.conversation_manager.conversation_manager import ConversationManager
    from openhands.server.monitoring import MonitoringListener
    from openhands.server.server_config import ServerConfig
    from openhands.storage.conversation.conversation_store import ConversationStore
    from openhands.storage.files import FileStore
    from openhands.storage.secrets.secrets_store import SecretsStore
    from openhands.storage.settings.settings_store import SettingsStore

    config: OpenHandsConfig
    server_config: ServerConfig
    file_store: FileStore
    sio: socketio.AsyncServer
    conversation_manager: ConversationManager
    monitoring_listener: MonitoringListener
    SettingsStoreImpl: type[SettingsStore]
    SecretsStoreImpl: type[SecretsStore]
    ConversationStoreImpl: type[ConversationStore]

__all__ = [
    "ConversationStoreImpl",
    "SecretsStoreImpl",
    "SettingsStoreImpl",
    "config",
    "conversation_manager",
    "file_store",
    "monitoring_listener",
    "server_config",
    "sio",
]

_built: dict[str, Any] = {}


def _config() -> Any:
    from openhands.server.app_services import load_app_config

    return load_app_config()


def _server_config() -> Any:
    from openhands.server.server_config import load_server_config

    return load_server_config()


def _file_store() -> Any:
    from openhands.storage.factory import get_file_store_from_config

    return get_file_store_from_config(_get("config"))


def _sio() -> Any:
    from openhands.server.app import app

    return app.state.sio


def _monitoring_listener() -> Any:
    from openhands.server.monitoring import MonitoringListener
    from openhands.utils.import_utils import get_impl

    listener_cls = get_impl(MonitoringListener, _get("server_config").monitoring_listener_class)
    return listener_cls.get_instance(_get("config"))


def _conversation_manager() -> Any:
    from openhands.server.conversation_manager.conversation_manager import ConversationManager
    from openhands.utils.import_utils import get_impl

    server_config = _get("server_config")
    manager_cls = get_impl(ConversationManager, server_config.conversation_manager_class)  # type: ignore[type-abstract]
    return manager_cls.get_instance(
        _get("sio"),
        _get("config"),
        _get("file_store"),
        server_config,
        _get("monitoring_listener"),
    )


def _store_class(base_path: str, field: str) -> Callable[[], Any]:
    def build() -> Any:
        from openhands.utils.import_utils import get_impl, import_from

        return get_impl(import_from(base_path), getattr(_get("server_config"), field))

    return build


_BUILDERS: dict[str, Callable[[], Any]] = {
    "config": _config,
    "server_config": _server_config,
    "file_store": _file_store,
    "sio": _sio,
    "monitoring_listener": _monitoring_listener,
    "conversation_manager": _conversation_manager,
    "SettingsStoreImpl": _store_class(
        "openhands.storage.settings.settings_store.SettingsStore", "settings_store_class"
    ),
    "SecretsStoreImpl": _store_class(
        "openhands.storage.secrets.secrets_store.SecretsStore", "secret_store_class"
    ),
    "ConversationStoreImpl": _store_class(
        "openhands.storage.conversation.conversation_store.ConversationStore",
        "conversation_store_class",
    ),
}

_FROM_SERVICES: dict[str, Callable[[AppServices], Any]] = {
    "config": lambda services: services.config,
    "server_config": lambda services: services.server_config,
    "file_store": lambda services: services.file_store,
    "sio": lambda services: services.sio,
    "monitoring_listener": lambda services: services.monitoring_listener,
    "conversation_manager": lambda services: services.conversation_manager,
    "SettingsStoreImpl": lambda services: services.settings_store_cls,
    "SecretsStoreImpl": lambda services: services.secrets_store_cls,
    "ConversationStoreImpl": lambda services: type(services.conversation_store),
}


def _get(name: str) -> Any:
    services = running_services()
    if services is not None and name in _FROM_SERVICES:
        return _FROM_SERVICES[name](services)
    if name not in _built:
        _built[name] = _BUILDERS[name]()
    return _built[name]


def __getattr__(name: str) -> Any:
    if name not in _BUILDERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _get(name)


def module_getattr(module: str, names: tuple[str, ...]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``names`` from this module.

    The reference's route and service modules imported these objects from
    ``openhands.server.shared`` at import time, so code reads (and tests replace) them as
    attributes of those modules. Ours reach them through the request's app services; the
    attributes stay for that code and are resolved only when read.
    """
    unknown = set(names) - set(_BUILDERS)
    if unknown:
        raise ValueError(f"not shared objects: {sorted(unknown)}")

    def getattr_(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return _get(name)

    return getattr_
