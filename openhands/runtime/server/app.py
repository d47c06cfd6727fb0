"""The action execution server's HTTP API (runtime.md §3.4–3.5).

Routes stay thin: parse, hand to the ActionExecutor or a file-transfer helper, return.
Error bodies for every failure kind live in one place (the handlers at the bottom).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, File, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask
from starlette.types import ASGIApp, Receive, Scope, Send

from openhands.core.logger import openhands_logger as logger
from openhands.events.serialization import action_from_dict, event_to_dict
from openhands.runtime.plugins.vscode.plugin import VSCodePlugin
from openhands.runtime.server.executor import ActionExecutor
from openhands.runtime.server.file_transfer import (
    TransferError,
    list_directory,
    save_upload,
    zip_path,
)
from openhands.runtime.server.mcp_proxy import MCPProxyRoutes, MCPProxyState
from openhands.runtime.server.session_key import KeyRotationError, SessionKey
from openhands.runtime.server.system_info import server_info

OPEN_PATHS = frozenset({"/alive", "/server_info"})
API_KEY_HEADER = b"x-session-api-key"


class ActionRequest(BaseModel):
    action: dict[str, Any] = Field(description="The action in its event_to_dict form")


class RotateKeyRequest(BaseModel):
    session_api_key: str = Field(description="The key to require from now on")


class SessionKeyMiddleware:
    """403 for every path but /alive and /server_info unless the session key matches."""

    def __init__(
        self, app: ASGIApp, api_key: str | None = None, key: SessionKey | None = None
    ) -> None:
        self.app = app
        self.key = key if key is not None else SessionKey(api_key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.key.required and scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            sent = dict(scope.get("headers") or []).get(API_KEY_HEADER)
            if not self.key.matches(sent):
                response = JSONResponse({"detail": "Invalid API Key"}, status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(executor: ActionExecutor) -> FastAPI:
    mcp_proxy = MCPProxyState()
    session_key = SessionKey(
        executor.options.session_api_key, executor.options.session_api_key_file
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await executor.initialize()
        yield
        await mcp_proxy.close()
        await executor.aclose()

    app = FastAPI(title="OpenHands action execution server", lifespan=lifespan)
    # Added first, so it sits inside the session key check.
    app.add_middleware(MCPProxyRoutes, state=mcp_proxy)
    app.add_middleware(SessionKeyMiddleware, key=session_key)

    @app.get("/alive")
    async def alive() -> dict[str, str]:
        return {"status": "ok" if executor.initialized else "not initialized"}

    @app.get("/server_info")
    async def get_server_info() -> dict[str, Any]:
        return server_info(executor.started_at, executor.last_execution_at)

    @app.post("/session_api_key")
    async def rotate_session_key(body: RotateKeyRequest) -> JSONResponse:
        # The middleware already checked the current key: only its holder (the warm pool
        # handing this sandbox to a conversation) can replace it.
        try:
            session_key.rotate(body.session_api_key)
        except KeyRotationError as exc:
            return JSONResponse({"detail": str(exc)}, status_code=400)
        logger.info("Session API key replaced")
        return JSONResponse({"status": "ok"})

    @app.post("/execute_action")
    async def execute_action(body: ActionRequest) -> JSONResponse:
        try:
            action = action_from_dict(body.action)
            observation = await executor.run_action(action)
            return JSONResponse(event_to_dict(observation))
        except Exception as exc:
            logger.exception("execute_action failed")
            return JSONResponse({"detail": f"Internal server error: {exc}"}, status_code=500)

    @app.post("/upload_file")
    async def upload_file(
        file: UploadFile = File(...), destination: str = "/", recursive: bool = False
    ) -> dict[str, Any]:
        save_upload(file.filename or "", file.file, destination, recursive)
        return {"filename": file.filename, "destination": destination, "recursive": recursive}

    @app.get("/download_files")
    async def download_files(path: str) -> FileResponse:
        zip_file = zip_path(path)
        return FileResponse(
            zip_file,
            media_type="application/zip",
            filename=f"{os.path.basename(path.rstrip('/')) or 'root'}.zip",
            background=BackgroundTask(os.remove, zip_file),
        )

    @app.post("/list_files")
    async def list_files(request: Request) -> list[str]:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        path = body.get("path") if isinstance(body, dict) else None
        # Relative to the server's working dir (not bash's current one), like the reference.
        return list_directory(path, executor.options.working_dir)

    @app.post("/update_mcp_server")
    async def update_mcp_server(request: Request) -> JSONResponse:
        body = await request.json()
        if not isinstance(body, list):
            return JSONResponse({"detail": "Request must be a list of MCP servers"}, 400)
        error = await mcp_proxy.replace(body)
        return JSONResponse(
            {"detail": "MCP server updated successfully", "router_error_log": error}
        )

    @app.get("/vscode/connection_token")
    async def vscode_token() -> dict[str, str | None]:
        vscode = executor.plugins.get(VSCodePlugin.name)
        return {"token": vscode.token if isinstance(vscode, VSCodePlugin) else None}

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"detail": "Invalid request parameters", "errors": str(exc.errors())}, 422
        )

    @app.exception_handler(TransferError)
    async def transfer_error(_request: Request, exc: TransferError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        logger.exception("Unhandled error: %s", exc)
        return JSONResponse(
            {"detail": "An unexpected error occurred. Please try again later."}, 500
        )

    return app
