"""Conversation collection logic: create, list, get, rename, delete, start, stop (§6.3)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import MappingProxyType

from fastapi import Request

from openhands.core.config.mcp_config import MCPConfig
from openhands.events.action import MessageAction
from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    ConversationManager,
)
from openhands.server.errors import (
    ConversationForbiddenError,
    ConversationMissingError,
    ConversationStateError,
    ConversationUpdateError,
    LLMKeyMissingError,
    PermissionDeniedError,
    RepositoryAccessError,
    SettingsRequiredError,
)
from openhands.server.models.conversation import (
    ConversationInfo,
    ConversationInfoResultSet,
    ConversationResponse,
    InitSessionRequest,
)
from openhands.server.monitoring import notify
from openhands.server.services.conversation_ids import (
    check_conversation_id,
    generate_unique_conversation_id,
)
from openhands.server.services.git_providers import GitProviders, provider_api_urls
from openhands.server.services.task_prompts import (
    create_microagent_prompt,
    suggested_task_prompt,
)
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.shared import module_getattr
from openhands.server.user_auth.user_auth import AuthType, UserAuth
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
    default_title,
)
from openhands.storage.data_models.conversation_status import ConversationStatus
from openhands.storage.data_models.settings import Settings
from openhands.storage.locations import get_conversation_dir
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore

logger = logging.getLogger(__name__)

KEYLESS_MODEL_PREFIXES = ("bedrock/", "lemonade/")
_RUNNING = (ConversationStatus.STARTING, ConversationStatus.RUNNING)


def create_provider_tokens_object(
    providers_set: Iterable[ProviderType],
) -> MappingProxyType[ProviderType, ProviderToken]:
    """An empty token per provider (the sandbox then knows which providers to expect)."""
    return MappingProxyType({provider: ProviderToken() for provider in providers_set})


class ConversationService:
    def __init__(self, app: AppServices, user_auth: UserAuth) -> None:
        self.app = app
        self.user_auth = user_auth
        self.store = app.conversation_store
        self.manager = app.conversation_manager

    # --- helpers -------------------------------------------------------------------------

    async def user_id(self) -> str | None:
        return await self.user_auth.get_user_id()

    async def load_metadata(self, conversation_id: str) -> ConversationMetadata | None:
        try:
            return await self.store.get_metadata(conversation_id)
        except FileNotFoundError:
            return None

    async def owned_metadata(self, conversation_id: str) -> ConversationMetadata | None:
        """The metadata, if it exists; another user's conversation is a 403."""
        metadata = await self.load_metadata(conversation_id)
        if metadata is not None and not await self.may_access(metadata):
            raise ConversationForbiddenError(conversation_id)
        return metadata

    async def may_access(self, metadata: ConversationMetadata) -> bool:
        user_id = await self.user_id()
        return user_id is None or metadata.user_id == user_id

    async def settings_or_raise(self) -> Settings:
        settings = await self.user_auth.get_user_settings()
        if settings is None:
            raise SettingsRequiredError()
        return settings

    async def init_data(
        self,
        settings: Settings,
        providers_set: Sequence[ProviderType] | None = None,
        *,
        provider_tokens: Mapping[ProviderType, ProviderToken] | None = None,
        custom_secrets: Mapping[str, CustomSecret] | None = None,
        **extra: object,
    ) -> ConversationInitData:
        """The loop's start data: ``settings`` plus the given tokens and secrets, else the
        stored ones; without any token, an empty one per provider of ``providers_set``."""
        secrets = await self.user_auth.get_user_secrets()
        if provider_tokens is None and secrets is not None:
            provider_tokens = secrets.provider_tokens
        if custom_secrets is None and secrets is not None:
            custom_secrets = secrets.custom_secrets
        tokens = dict(provider_tokens or {})
        if not tokens:
            tokens = dict(create_provider_tokens_object(providers_set or ()))
        return ConversationInitData.from_settings(
            settings,
            git_provider_tokens=tokens,
            custom_secrets=dict(custom_secrets or {}),
            **extra,
        )

    def _info(
        self, metadata: ConversationMetadata, loop: AgentLoopInfo | None, connections: int
    ) -> ConversationInfo:
        return conversation_info(metadata, loop, connections)

    async def _infos(self, items: list[ConversationMetadata]) -> list[ConversationInfo]:
        return await conversation_infos(self.manager, items)

    # --- create --------------------------------------------------------------------------

    async def create(self, request: InitSessionRequest) -> ConversationResponse:
        repository, provider = request.repository, request.git_provider
        trigger = ConversationTrigger.GUI
        message = request.initial_user_msg
        if request.suggested_task is not None:
            trigger = ConversationTrigger.SUGGESTED_TASK
            message = suggested_task_prompt(request.suggested_task)
        if request.create_microagent is not None:
            trigger = ConversationTrigger.MICROAGENT_MANAGEMENT
            repository = repository or request.create_microagent.repo
            provider = provider or request.create_microagent.git_provider
            message = create_microagent_prompt(request.create_microagent, message)
        if self.user_auth.get_auth_type() == AuthType.BEARER:
            trigger = ConversationTrigger.OPENHANDS_API

        if repository:
            providers = GitProviders(
                await self.user_auth.get_provider_tokens(),
                provider_api_urls(self.app.server_config),
            )
            if not await providers.can_read(repository, provider):
                raise RepositoryAccessError(repository)

        settings = await self.startable_settings()
        conversation_id = await generate_unique_conversation_id(self.store)
        if request.conversation_id and self.app.server_config.allow_set_conversation_id:
            conversation_id = check_conversation_id(request.conversation_id)
        await self.initialize(
            conversation_id, repository, request.selected_branch, trigger, provider
        )
        init_data = await self.init_data(
            settings,
            selected_repository=repository,
            selected_branch=request.selected_branch,
            git_provider=provider,
            conversation_instructions=request.conversation_instructions,
        )
        if request.mcp_config is not None:
            init_data.mcp_config = request.mcp_config
        loop = await self.start_loop(
            conversation_id, init_data, message, request.image_urls, request.replay_json
        )
        notify(self.app.monitoring_listener.on_create_conversation)
        return ConversationResponse(
            status="ok", conversation_id=conversation_id, conversation_status=loop.status
        )

    async def startable_settings(self) -> Settings:
        """The caller's settings, which must exist and (but for keyless models) hold an
        LLM key: ``SettingsRequiredError`` / ``LLMKeyMissingError`` otherwise."""
        settings = await self.settings_or_raise()
        key = settings.llm_api_key.get_secret_value().strip() if settings.llm_api_key else ""
        if not key and not (settings.llm_model or "").startswith(KEYLESS_MODEL_PREFIXES):
            raise LLMKeyMissingError()
        return settings

    async def initialize(
        self,
        conversation_id: str,
        repository: str | None,
        branch: str | None,
        trigger: ConversationTrigger = ConversationTrigger.GUI,
        provider: ProviderType | None = None,
    ) -> ConversationMetadata:
        """The conversation's metadata, created (and saved) when missing; another user's
        conversation is a 403."""
        metadata = await self.load_metadata(conversation_id)
        if metadata is None:
            metadata = ConversationMetadata(
                conversation_id=conversation_id,
                user_id=await self.user_id(),
                selected_repository=repository,
                selected_branch=branch,
                git_provider=provider,
                title=default_title(conversation_id),
                trigger=trigger,
            )
            await self.store.save_metadata(metadata)
        elif not await self.may_access(metadata):
            raise ConversationForbiddenError(conversation_id)
        return metadata

    async def start_loop(
        self,
        conversation_id: str,
        init_data: ConversationInitData,
        message: str | None = None,
        image_urls: Sequence[str] | None = None,
        replay_json: str | None = None,
    ) -> AgentLoopInfo:
        initial_message = None
        if message or image_urls:
            initial_message = MessageAction(
                content=message or "", image_urls=list(image_urls or [])
            )
        return await self.manager.maybe_start_agent_loop(
            conversation_id, init_data, await self.user_id(), initial_message, replay_json
        )

    # --- read ----------------------------------------------------------------------------

    async def search(
        self,
        page_id: str | None,
        limit: int,
        selected_repository: str | None = None,
        trigger: ConversationTrigger | None = None,
    ) -> ConversationInfoResultSet:
        # Per-user pages are filtered by owner before slicing, so they stay full.
        owner = await self.user_id()
        if _filters_by_owner(type(self.store)):
            page = await self.store.search(page_id, limit, owner=owner)  # type: ignore[call-arg]
            items = page.results
        else:  # a store without `owner` pages over every user's records
            page = await self.store.search(page_id, limit)
            items = [m for m in page.results if owner is None or m.user_id == owner]
        next_page_id = page.next_page_id
        cutoff = datetime.now(UTC) - timedelta(seconds=self.app.config.conversation_max_age_seconds)
        items = [
            m
            for m in items
            if m.created_at >= cutoff
            and (selected_repository is None or m.selected_repository == selected_repository)
            and (trigger is None or m.trigger == trigger)
        ]
        return ConversationInfoResultSet(
            results=await self._infos(items), next_page_id=next_page_id
        )

    async def get(self, conversation_id: str) -> ConversationInfo | None:
        metadata = await self.owned_metadata(conversation_id)
        if metadata is None:
            return None
        return (await self._infos([metadata]))[0]

    # --- update / delete -----------------------------------------------------------------

    async def rename(self, conversation_id: str, title: str) -> bool:
        async with self.manager.metadata_lock(conversation_id):
            metadata = await self.load_metadata(conversation_id)
            if metadata is None:
                raise ConversationMissingError()
            user_id = await self.user_id()
            if user_id is not None and metadata.user_id != user_id:
                raise PermissionDeniedError()
            clean = title.strip()
            try:
                await self.store.save_metadata(
                    metadata.model_copy(
                        update={"title": clean, "last_updated_at": datetime.now(UTC)}
                    )
                )
            except Exception as error:
                logger.exception("Renaming %s failed", conversation_id)
                raise ConversationUpdateError(f"Failed to update conversation: {error}") from error
        try:
            await self.manager.send_title_update(conversation_id, clean)
        except Exception as error:
            logger.exception("Renaming %s failed", conversation_id)
            raise ConversationUpdateError(f"Failed to update conversation: {error}") from error
        return True

    async def delete(self, conversation_id: str) -> bool:
        metadata = await self.owned_metadata(conversation_id)
        if metadata is None:
            return False
        # The sandbox goes first: a loop that is stuck or still starting would otherwise
        # hold the close below for minutes, and a start in flight would leave it behind.
        await self._delete_sandbox(conversation_id)
        if await self.manager.is_agent_loop_running(conversation_id):
            await self.manager.close_session(conversation_id)
        store = self.app.file_store
        await asyncio.to_thread(store.delete, get_conversation_dir(conversation_id))
        if metadata.user_id:
            await asyncio.to_thread(
                store.delete, get_conversation_dir(conversation_id, metadata.user_id)
            )
        return True

    async def _delete_sandbox(self, conversation_id: str) -> None:
        sandboxes = getattr(self.manager, "docker_sandboxes", None)
        if sandboxes is not None:
            from openhands.runtime.impl.docker.docker_runtime import CONTAINER_NAME_PREFIX

            try:
                await asyncio.to_thread(
                    sandboxes.delete, conversation_id, f"{CONTAINER_NAME_PREFIX}{conversation_id}"
                )
                return
            except Exception as error:  # the engine did not answer: the plain delete below
                logger.warning("Deleting the sandbox of %s: %s", conversation_id, error)
        try:
            from openhands.runtime import get_runtime_cls

            runtime_cls = get_runtime_cls(self.app.config.runtime)
            await runtime_cls.delete(conversation_id)
        except Exception as error:  # no runtime package, or no sandbox for this id
            logger.info("No sandbox deleted for %s: %s", conversation_id, error)

    # --- start / stop --------------------------------------------------------------------

    async def start(
        self, conversation_id: str, providers_set: Sequence[ProviderType] | None
    ) -> ConversationResponse:
        metadata = await self.owned_metadata(conversation_id)
        if metadata is None:
            raise ConversationStateError(conversation_id, status=404)
        try:
            settings = await self.settings_or_raise()
            init_data = await self.init_data(
                settings,
                providers_set,
                selected_repository=metadata.selected_repository,
                selected_branch=metadata.selected_branch,
                git_provider=metadata.git_provider,
            )
            loop = await self.manager.maybe_start_agent_loop(
                conversation_id, init_data, await self.user_id()
            )
        except SettingsRequiredError as error:
            # The caller has to store settings first: a 4xx (0.59 answered 500).
            raise ConversationStateError(
                conversation_id, f"Failed to start conversation: {error}", status=400
            ) from error
        except Exception as error:
            logger.exception("Starting %s failed", conversation_id)
            raise ConversationStateError(
                conversation_id, f"Failed to start conversation: {error}"
            ) from error
        return ConversationResponse(
            status="ok", conversation_id=conversation_id, conversation_status=loop.status
        )

    async def stop(self, conversation_id: str) -> ConversationResponse:
        await self.owned_metadata(conversation_id)
        try:
            loops = await self.manager.get_agent_loop_info(filter_to_sids={conversation_id})
            status = loops[0].status if loops else ConversationStatus.STOPPED
            if status not in _RUNNING:
                return ConversationResponse(
                    status="ok",
                    conversation_id=conversation_id,
                    message="Conversation was not running",
                    conversation_status=ConversationStatus.STOPPED,
                )
            await self.manager.close_session(conversation_id)
        except Exception as error:
            logger.exception("Stopping %s failed", conversation_id)
            raise ConversationStateError(
                conversation_id, f"Failed to stop conversation: {error}"
            ) from error
        return ConversationResponse(
            status="ok",
            conversation_id=conversation_id,
            message="Conversation stopped successfully",
            conversation_status=status,
        )

    # --- sockets -------------------------------------------------------------------------

    async def ensure_socket_access(self, conversation_id: str) -> str | None:
        """The socket validator: creates missing metadata; another user's conversation is a 403."""
        user_id = await self.user_id()
        metadata = await self.load_metadata(conversation_id)
        if metadata is None:
            metadata = ConversationMetadata(
                conversation_id=conversation_id,
                user_id=user_id,
                title=default_title(conversation_id),
                last_updated_at=datetime.now(UTC),
            )
            await self.store.save_metadata(metadata)
        elif user_id is not None and metadata.user_id != user_id:
            raise ConversationForbiddenError(conversation_id)
        return metadata.user_id


# --- the reference's module functions ------------------------------------------------------
#
# Callers name the user by id rather than by request: each function runs a
# `ConversationService` of the app running in this process for that user.


class _KnownUser(UserAuth):
    """The user a module function was called for, with the given store classes."""

    def __init__(
        self,
        app: AppServices,
        user_id: str | None,
        settings_store_cls: type[SettingsStore],
        secrets_store_cls: type[SecretsStore],
    ) -> None:
        super().__init__(
            app.config, settings_store_cls=settings_store_cls, secrets_store_cls=secrets_store_cls
        )
        self._user_id = user_id

    async def get_user_id(self) -> str | None:
        return self._user_id

    @classmethod
    async def get_instance(cls, request: Request) -> UserAuth:
        raise TypeError("_KnownUser is made by the conversation functions, not per request")


async def _service_for(user_id: str | None) -> ConversationService:
    # These functions take no request, so the app is this process's: the compatibility
    # adapter's lookup (the running app's services, else the adapter's own set).
    from openhands.server import shared

    app = await shared.process_services()
    # The store classes by this module's names, read now: the reference's callers read
    # (and its tests replace) ``SettingsStoreImpl``/``SecretsStoreImpl`` here.
    module = sys.modules[__name__]
    user = _KnownUser(app, user_id, module.SettingsStoreImpl, module.SecretsStoreImpl)
    return ConversationService(app, user)


# The reference's module attributes (the process's objects, resolved when read).
__getattr__ = module_getattr(__name__, ("server_config", "SettingsStoreImpl", "SecretsStoreImpl"))


async def initialize_conversation(
    user_id: str | None,
    conversation_id: str | None,
    selected_repository: str | None,
    selected_branch: str | None,
    conversation_trigger: ConversationTrigger = ConversationTrigger.GUI,
    git_provider: ProviderType | None = None,
) -> ConversationMetadata | None:
    """The conversation's metadata, created when missing (a new id when None)."""
    service = await _service_for(user_id)
    conversation_id = conversation_id or await generate_unique_conversation_id(service.store)
    return await service.initialize(
        conversation_id, selected_repository, selected_branch, conversation_trigger, git_provider
    )


async def setup_init_conversation_settings(
    user_id: str | None,
    conversation_id: str,
    providers_set: Sequence[ProviderType],
    provider_tokens: Mapping[ProviderType, ProviderToken] | None = None,
) -> ConversationInitData:
    """The start data of ``conversation_id`` from the user's settings and secrets
    (``MissingSettingsError`` without settings)."""
    service = await _service_for(user_id)
    settings = await service.settings_or_raise()
    metadata = await service.load_metadata(conversation_id)
    return await service.init_data(
        settings,
        providers_set,
        provider_tokens=provider_tokens,
        selected_repository=metadata.selected_repository if metadata else None,
        selected_branch=metadata.selected_branch if metadata else None,
        git_provider=metadata.git_provider if metadata else None,
    )


async def start_conversation(
    user_id: str | None,
    git_provider_tokens: Mapping[ProviderType, ProviderToken] | None,
    custom_secrets: Mapping[str, CustomSecret] | None,
    initial_user_msg: str | None,
    image_urls: list[str] | None,
    replay_json: str | None,
    conversation_id: str,
    conversation_metadata: ConversationMetadata,
    conversation_instructions: str | None,
    mcp_config: MCPConfig | None = None,
) -> AgentLoopInfo:
    """Start (or join) the agent loop of an initialized conversation
    (``MissingSettingsError`` / ``LLMAuthenticationError`` when it cannot)."""
    service = await _service_for(user_id)
    settings = await service.startable_settings()
    init_data = await service.init_data(
        settings,
        provider_tokens=git_provider_tokens,
        custom_secrets=custom_secrets,
        selected_repository=conversation_metadata.selected_repository,
        selected_branch=conversation_metadata.selected_branch,
        git_provider=conversation_metadata.git_provider,
        conversation_instructions=conversation_instructions,
    )
    if mcp_config is not None:
        init_data.mcp_config = mcp_config
    return await service.start_loop(
        conversation_id, init_data, initial_user_msg, image_urls, replay_json
    )


async def create_new_conversation(
    user_id: str | None,
    git_provider_tokens: Mapping[ProviderType, ProviderToken] | None,
    custom_secrets: Mapping[str, CustomSecret] | None,
    selected_repository: str | None,
    selected_branch: str | None,
    initial_user_msg: str | None,
    image_urls: list[str] | None,
    replay_json: str | None,
    conversation_instructions: str | None = None,
    conversation_trigger: ConversationTrigger = ConversationTrigger.GUI,
    git_provider: ProviderType | None = None,
    conversation_id: str | None = None,
    mcp_config: MCPConfig | None = None,
) -> AgentLoopInfo:
    """Create a conversation and start its loop: ``MissingSettingsError`` without stored
    settings, ``LLMAuthenticationError`` without an LLM key (nothing is created then)."""
    service = await _service_for(user_id)
    await service.startable_settings()
    metadata = await initialize_conversation(
        user_id,
        conversation_id,
        selected_repository,
        selected_branch,
        conversation_trigger,
        git_provider,
    )
    assert metadata is not None
    loop = await start_conversation(
        user_id,
        git_provider_tokens,
        custom_secrets,
        initial_user_msg,
        image_urls,
        replay_json,
        metadata.conversation_id,
        metadata,
        conversation_instructions,
        mcp_config,
    )
    notify(service.app.monitoring_listener.on_create_conversation)
    return loop


def conversation_info(
    metadata: ConversationMetadata, loop: AgentLoopInfo | None, connections: int
) -> ConversationInfo:
    """What the conversation list shows of one stored conversation and its live loop."""
    return ConversationInfo(
        conversation_id=metadata.conversation_id,
        title=metadata.title or default_title(metadata.conversation_id),
        last_updated_at=metadata.last_updated_at,
        status=loop.status if loop is not None else ConversationStatus.STOPPED,
        runtime_status=loop.runtime_status if loop is not None else None,
        selected_repository=metadata.selected_repository,
        selected_branch=metadata.selected_branch,
        git_provider=metadata.git_provider,
        trigger=metadata.trigger,
        num_connections=connections,
        url=loop.url if loop is not None else None,
        session_api_key=loop.session_api_key if loop is not None else None,
        created_at=metadata.created_at,
        pr_number=list(metadata.pr_number),
    )


async def conversation_infos(
    manager: ConversationManager, items: list[ConversationMetadata]
) -> list[ConversationInfo]:
    """``conversation_info`` of each of ``items``, with the manager's loops and connections."""
    sids = {metadata.conversation_id for metadata in items}
    loops = {
        info.conversation_id: info
        for info in await manager.get_agent_loop_info(filter_to_sids=sids)
    }
    connections = await manager.get_connections(filter_to_sids=sids)
    counts: dict[str, int] = {}
    for sid in connections.values():
        counts[sid] = counts.get(sid, 0) + 1
    return [
        conversation_info(m, loops.get(m.conversation_id), counts.get(m.conversation_id, 0))
        for m in items
    ]


@functools.cache
def _filters_by_owner(store_cls: type[ConversationStore]) -> bool:
    """Whether the store's ``search`` takes ``owner`` (ours do: the file and SQL stores)."""
    return "owner" in inspect.signature(store_cls.search).parameters
