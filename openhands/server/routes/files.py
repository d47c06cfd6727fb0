"""Workspace files and git state of a conversation's sandbox (server-api §6.4)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Query, UploadFile
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from openhands.server.dependencies import API_GUARDS, AttachedConversation, Services
from openhands.server.errors import MappedErrorsRoute
from openhands.server.models.files import FileContent, GitChange, GitDiff, UploadResult
from openhands.server.services import workspace

files_api_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/conversations/{conversation_id}",
    tags=["files"],
    dependencies=API_GUARDS,
)


def _workspace(conversation: AttachedConversation) -> str:
    """The workspace path inside the sandbox (a LocalRuntime uses a host directory)."""
    runtime = conversation.runtime
    if runtime is None:  # a loop still starting: the route's runtime check answers 404
        return conversation.config.workspace_mount_path_in_sandbox
    return str(runtime.workspace_root)


@files_api_router.get("/list-files")
async def list_files(
    conversation: AttachedConversation, services: Services, path: str | None = None
) -> list[str]:
    return await workspace.list_files(conversation.runtime, _workspace(conversation), path)


@files_api_router.get("/select-file")
async def select_file(
    conversation: AttachedConversation, services: Services, file: Annotated[str, Query()]
) -> FileContent:
    code = await workspace.select_file(conversation.runtime, _workspace(conversation), file)
    return FileContent(code=code)


@files_api_router.post("/upload-files")
async def upload_files(
    conversation: AttachedConversation,
    services: Services,
    files: Annotated[list[UploadFile], File()],
) -> UploadResult:
    contents = [(upload.filename or "", await upload.read()) for upload in files]
    return await workspace.upload_files(
        conversation.runtime, _workspace(conversation), contents, services.config
    )


@files_api_router.get("/zip-directory", response_class=FileResponse)
async def zip_current_workspace(
    conversation: AttachedConversation, services: Services
) -> FileResponse:
    path = await workspace.zip_workspace(conversation.runtime, _workspace(conversation))
    return FileResponse(
        path,
        media_type="application/zip",
        filename="workspace.zip",
        background=BackgroundTask(workspace.remove_file, path),
    )


@files_api_router.get("/git/changes")
async def git_changes(conversation: AttachedConversation, services: Services) -> list[GitChange]:
    return await workspace.git_changes(conversation.runtime, _workspace(conversation))


@files_api_router.get("/git/diff")
async def git_diff(
    conversation: AttachedConversation, services: Services, path: Annotated[str, Query()]
) -> GitDiff:
    return await workspace.git_diff(conversation.runtime, _workspace(conversation), path)


app = files_api_router  # the reference's name of this router
