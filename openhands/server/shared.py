"""The compatibility adapter: the reference's ``openhands.server.shared`` module-level objects.

The server keeps these objects on ``AppServices`` (built by the app's lifespan and reached
through the request's app); this module serves them under the reference's names for
scripts, tests and the reference's request-less functions. It is the one place that looks
up process-wide services (the test ``tests/unit/server/test_import_graph.py`` companion,
``test_service_lookups.py``, keeps it so):

- while an app runs in this process, each name is that app's object
  (``app_services.running_services()``);
- otherwise each is built on first access from ``config.toml`` + environment and kept
  until an app starts (``app_services.retire_adapter_objects``): ``config``
  (``load_app_config()``: the loaded config plus its JWT secret), ``server_config``
  (``load_server_config()``), ``file_store``, ``sio`` (a Socket.IO server of its own:
  with no app running no socket can reach it), ``monitoring_listener`` and
  ``conversation_manager``
  (from the extension points; the manager is not entered, so it runs no cleanup task).

``SettingsStoreImpl``, ``SecretsStoreImpl`` and ``ConversationStoreImpl`` are the classes
the server config names (``get_impl``). ``process_services()`` is the whole set as
``AppServices`` (the running app's, else one assembled once from the objects above, with
the same manager). Nothing is built at import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from openhands.server.app_services import AppServices, adapter_built, running_services

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


def _config() -> OpenHandsConfig:
    from openhands.server.app_services import load_app_config

    return load_app_config()


def _server_config() -> ServerConfig:
    from openhands.server.server_config import load_server_config

    return load_server_config()


# The adapter's own objects, typed (``_get`` keeps them as ``object``).
def _the_config() -> OpenHandsConfig:
    return cast("OpenHandsConfig", _get("config"))


def _the_server_config() -> ServerConfig:
    return cast("ServerConfig", _get("server_config"))


def _file_store() -> FileStore:
    from openhands.storage.factory import get_file_store_from_config

    return get_file_store_from_config(_the_config())


def _sio() -> socketio.AsyncServer:
    # A server of its own for the adapter's manager: no socket reaches a process with no
    # app running, and the app module (which imports every route) stays out of reach.
    from openhands.server.composition import create_sio

    return create_sio(_the_server_config())


def _monitoring_listener() -> MonitoringListener:
    from openhands.server.monitoring import MonitoringListener
    from openhands.utils.import_utils import get_impl

    listener_cls = get_impl(MonitoringListener, _the_server_config().monitoring_listener_class)
    return listener_cls.get_instance(_the_config())


def _conversation_manager() -> ConversationManager:
    from openhands.server.conversation_manager.conversation_manager import ConversationManager
    from openhands.utils.import_utils import get_impl

    server_config = _the_server_config()
    manager_cls = get_impl(ConversationManager, server_config.conversation_manager_class)  # type: ignore[type-abstract]
    return manager_cls.get_instance(
        cast("socketio.AsyncServer", _get("sio")),
        _the_config(),
        cast("FileStore", _get("file_store")),
        server_config,
        cast("MonitoringListener", _get("monitoring_listener")),
    )


def _store_class(base_path: str, field: str) -> Callable[[], type]:
    def build() -> type:
        from openhands.utils.import_utils import get_impl, import_from

        return get_impl(import_from(base_path), getattr(_the_server_config(), field))

    return build


_BUILDERS: dict[str, Callable[[], object]] = {
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

_FROM_SERVICES: dict[str, Callable[[AppServices], object]] = {
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


def _get(name: str) -> object:
    services = running_services()
    if services is not None and name in _FROM_SERVICES:
        return _FROM_SERVICES[name](services)
    built = adapter_built()
    if name not in built:
        built[name] = _BUILDERS[name]()
    return built[name]


async def process_services() -> AppServices:
    """The services of this process: the running app's, else one set assembled once from
    this module's objects (so its manager is ``conversation_manager``, never a second)."""
    services = running_services()
    if services is not None:
        return services
    built = adapter_built()
    cached = built.get("services")
    if isinstance(cached, AppServices):
        return cached
    from openhands.server.composition import assemble_services

    assembled = await assemble_services(
        _the_config(),
        _the_server_config(),
        cast("socketio.AsyncServer", _get("sio")),
        cast("ConversationManager", _get("conversation_manager")),
        cast("MonitoringListener", _get("monitoring_listener")),
        cast("FileStore", _get("file_store")),
    )
    # Another caller may have assembled while this one awaited the store: keep the first.
    kept = built.setdefault("services", assembled)
    assert isinstance(kept, AppServices)
    return kept


def running_app_services() -> AppServices:
    """The running app's services (for the reference's synchronous entry points, which
    act on a conversation of a running app); RuntimeError when none runs."""
    services = running_services()
    if services is None:
        raise RuntimeError("No OpenHands app is running in this process")
    return services


def __getattr__(name: str) -> object:
    if name not in _BUILDERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _get(name)


def module_getattr(module: str, names: tuple[str, ...]) -> Callable[[str], object]:
    """A module ``__getattr__`` serving ``names`` from this module.

    The reference's route and service modules imported these objects from
    ``openhands.server.shared`` at import time, so code reads (and tests replace) them as
    attributes of those modules. Ours reach them through the request's app services; the
    attributes stay for that code and are resolved only when read.
    """
    unknown = set(names) - set(_BUILDERS)
    if unknown:
        raise ValueError(f"not shared objects: {sorted(unknown)}")

    def getattr_(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return _get(name)

    return getattr_
