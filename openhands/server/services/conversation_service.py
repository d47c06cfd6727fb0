"""Conversation collection logic: create, list, get, rename, delete, start, stop (§6.3)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from openhands.events.action import MessageAction
from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.conversation_manager import AgentLoopInfo
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
from openhands.server.services.conversation_ids import check_conversation_id
from openhands.server.services.git_providers import GitProviders
from openhands.server.services.task_prompts import (
    create_microagent_prompt,
    suggested_task_prompt,
)
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.user_auth.user_auth import AuthType, UserAuth
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
    default_title,
)
from openhands.storage.data_models.conversation_status import ConversationStatus
from openhands.storage.data_models.settings import Settings
from openhands.storage.locations import get_conversation_dir

logger = logging.getLogger(__name__)

KEYLESS_MODEL_PREFIXES = ("bedrock/", "lemonade/")
_RUNNING = (ConversationStatus.STARTING, ConversationStatus.RUNNING)


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
        **extra: object,
    ) -> ConversationInitData:
        secrets = await self.user_auth.get_user_secrets()
        tokens: dict[ProviderType, ProviderToken] = (
            dict(secrets.provider_tokens) if secrets is not None else {}
        )
        if not tokens:
            tokens = {provider: ProviderToken() for provider in providers_set or ()}
        return ConversationInitData.from_settings(
            settings,
            git_provider_tokens=tokens,
            custom_secrets=dict(secrets.custom_secrets) if secrets is not None else {},
            **extra,
        )

    def _info(
        self, metadata: ConversationMetadata, loop: AgentLoopInfo | None, connections: int
    ) -> ConversationInfo:
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

    async def _infos(self, items: list[ConversationMetadata]) -> list[ConversationInfo]:
        sids = {metadata.conversation_id for metadata in items}
        loops = {
            info.conversation_id: info
            for info in await self.manager.get_agent_loop_info(filter_to_sids=sids)
        }
        connections = await self.manager.get_connections(filter_to_sids=sids)
        counts: dict[str, int] = {}
        for sid in connections.values():
            counts[sid] = counts.get(sid, 0) + 1
        return [
            self._info(m, loops.get(m.conversation_id), counts.get(m.conversation_id, 0))
            for m in items
        ]

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
                await self.user_auth.get_provider_tokens(), self.app.server_config.github_api_url
            )
            if not await providers.verify_repository(repository, provider):
                raise RepositoryAccessError(repository)

        settings = await self.settings_or_raise()
        key = settings.llm_api_key.get_secret_value().strip() if settings.llm_api_key else ""
        if not key and not (settings.llm_model or "").startswith(KEYLESS_MODEL_PREFIXES):
            raise LLMKeyMissingError()

        conversation_id = uuid.uuid4().hex
        if request.conversation_id and self.app.server_config.allow_set_conversation_id:
            conversation_id = check_conversation_id(request.conversation_id)
        user_id = await self.user_id()
        metadata = await self.load_metadata(conversation_id)
        if metadata is None:
            metadata = ConversationMetadata(
                conversation_id=conversation_id,
                user_id=user_id,
                selected_repository=repository,
                selected_branch=request.selected_branch,
                git_provider=provider,
                title=default_title(conversation_id),
                trigger=trigger,
            )
            await self.store.save_metadata(metadata)
        elif not await self.may_access(metadata):
            raise ConversationForbiddenError(conversation_id)

        init_data = await self.init_data(
            settings,
            selected_repository=repository,
            selected_branch=request.selected_branch,
            git_provider=provider,
            conversation_instructions=request.conversation_instructions,
        )
        if request.mcp_config is not None:
            init_data.mcp_config = request.mcp_config
        initial_message = None
        if message or request.image_urls:
            initial_message = MessageAction(
                content=message or "", image_urls=list(request.image_urls or [])
            )
        loop = await self.manager.maybe_start_agent_loop(
            conversation_id, init_data, user_id, initial_message, request.replay_json
        )
        return ConversationResponse(
            status="ok", conversation_id=conversation_id, conversation_status=loop.status
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
        page = await self.store.search(page_id, limit, owner=await self.user_id())
        items, next_page_id = page.results, page.next_page_id
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
        if await self.manager.is_agent_loop_running(conversation_id):
            await self.manager.close_session(conversation_id)
        await self._delete_sandbox(conversation_id)
        store = self.app.file_store
        await asyncio.to_thread(store.delete, get_conversation_dir(conversation_id))
        if metadata.user_id:
            await asyncio.to_thread(
                store.delete, get_conversation_dir(conversation_id, metadata.user_id)
            )
        return True

    async def _delete_sandbox(self, conversation_id: str) -> None:
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
