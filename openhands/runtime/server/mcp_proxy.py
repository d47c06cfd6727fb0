"""The sandbox's MCP proxy (runtime.md §3.6): stdio servers run here, served over SSE.

``POST /update_mcp_server`` hands over a list of stdio server configs. Each one is started
as a subprocess with one MCP session kept open (stdio servers are often slow to start, so
they are not restarted per call). Their tools are served together as one MCP server over
SSE at ``/mcp/sse`` (messages posted to ``/mcp/messages/``); the first server to list a tool
name gets its calls. The session key middleware in front of the app guards these paths.

The ``mcp`` SDK is imported lazily: a sandbox image without it still runs, and answers
``/update_mcp_server`` with an error log instead of a proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from openhands.core.logger import openhands_logger as logger

if TYPE_CHECKING:
    from mcp import Client
    from mcp.server.sse import SseServerTransport
    from mcp_types import Tool

SSE_PATH = "/mcp/sse"
MESSAGES_PATH = "/mcp/messages/"
# Seconds a stdio server gets to start and list its tools (`npx -y …` may download first).
START_TIMEOUT = 45.0


@dataclass(frozen=True)
class StdioServer:
    """One posted stdio server config (the host validated it; this only checks the shape).

    Not the host's MCPStdioServerConfig: importing the config package would pull in
    dependencies the sandbox image does not have.
    """

    name: str
    command: str
    args: list[str]
    env: dict[str, str]

    @classmethod
    def parse(cls, raw: Any) -> StdioServer:
        if not isinstance(raw, dict):
            raise ValueError(f"a stdio server must be an object, got {type(raw).__name__}")
        name, command = raw.get("name"), raw.get("command")
        args, env = raw.get("args") or [], raw.get("env") or {}
        if not isinstance(name, str) or not name or not isinstance(command, str) or not command:
            raise ValueError("a stdio server needs a `name` and a `command`")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"{name}: `args` must be a list of strings")
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise ValueError(f"{name}: `env` must map names to strings")
        return cls(name, command, list(args), {str(k): v for k, v in env.items()})


class StdioMCPProxy:
    """Running stdio MCP servers and the SSE transport that serves their tools."""

    def __init__(self) -> None:
        self._stop = asyncio.Event()
        self._holders: list[asyncio.Task[None]] = []
        self._routes: dict[str, Client] = {}
        self._tools: list[Tool] = []
        self.server_names: list[str] = []
        self._transport: SseServerTransport | None = None
        self._server: Any = None

    @classmethod
    async def start(cls, raw_servers: list[Any]) -> tuple[StdioMCPProxy | None, str]:
        """Start the servers; the proxy (None when none started) and an error log."""
        proxy = cls()
        errors: list[str] = []
        configs: list[StdioServer] = []
        for raw in raw_servers:
            try:
                configs.append(StdioServer.parse(raw))
            except ValueError as error:
                errors.append(f"invalid stdio server: {error}")
        # Side by side: the conversation waits for the slowest server, not for the sum, so a
        # server that fails slowly (say `uvx`/`npx` fetching a package with no network) does
        # not hold up the others. Tools are registered in the posted order afterwards, so
        # which server wins a shadowed tool name does not depend on start speed.
        started = await asyncio.gather(
            *(proxy._launch(config) for config in configs), return_exceptions=True
        )
        for config, result in zip(configs, started, strict=True):
            if isinstance(result, BaseException):
                errors.append(f"{config.name}: {_reason(result)}")
            else:
                proxy._register(config, *result)
        if not proxy.server_names:
            await proxy.close()
            return None, "; ".join(errors) or "no stdio MCP server could be started"
        proxy._build_server()
        return proxy, "; ".join(errors)

    async def _launch(self, config: StdioServer) -> tuple[Client, list[Tool]]:
        """Start one server and list its tools; its session lives in a holder task."""
        from mcp import StdioServerParameters

        params = StdioServerParameters(command=config.command, args=config.args, env=config.env)
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        holder = asyncio.create_task(self._hold(config.name, params, ready))
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), START_TIMEOUT)
            tools = await asyncio.wait_for(_all_tools(client), START_TIMEOUT)
        except BaseException:
            holder.cancel()
            with contextlib.suppress(BaseException):
                await holder
            raise
        self._holders.append(holder)
        return client, tools

    def _register(self, config: StdioServer, client: Client, tools: list[Tool]) -> None:
        self.server_names.append(config.name)
        for tool in tools:
            if tool.name in self._routes:
                logger.warning("MCP proxy: tool %r of %s is shadowed", tool.name, config.name)
                continue
            self._routes[tool.name] = client
            self._tools.append(tool)
        logger.info("MCP proxy: %s started with %d tools", config.name, len(tools))

    async def _hold(self, name: str, params: Any, ready: asyncio.Future[Client]) -> None:
        """Own one stdio session for its whole life: anyio scopes must close in their task."""
        from mcp import Client

        try:
            async with Client(params, mode="legacy", cache=None) as client:
                ready.set_result(client)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError(name))
            elif not isinstance(error, asyncio.CancelledError):
                logger.warning("MCP proxy: stdio server %s stopped: %s", name, _reason(error))
            if isinstance(error, asyncio.CancelledError):
                raise

    def _build_server(self) -> None:
        import mcp_types as types
        from mcp.server.lowlevel import Server
        from mcp.server.sse import SseServerTransport

        async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=list(self._tools))

        async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            client = self._routes.get(params.name)
            if client is None:
                text = f"Unknown tool: {params.name}"
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=text)], is_error=True
                )
            return await client.call_tool(params.name, dict(params.arguments or {}))

        self._server = Server(
            "openhands-sandbox-mcp", on_list_tools=list_tools, on_call_tool=call_tool
        )
        self._transport = SseServerTransport(MESSAGES_PATH)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request to ``/mcp/sse`` or ``/mcp/messages/``."""
        assert self._transport is not None and self._server is not None
        if scope["path"] == SSE_PATH:
            async with self._transport.connect_sse(scope, receive, send) as (read, write):
                await self._server.run(read, write, self._server.create_initialization_options())
        else:
            await self._transport.handle_post_message(scope, receive, send)

    async def close(self) -> None:
        self._stop.set()
        if self._holders:
            _done, pending = await asyncio.wait(self._holders, timeout=10)
            for task in pending:
                task.cancel()
        self._holders.clear()


class MCPProxyState:
    """The proxy currently served, replaced as a whole by each update."""

    def __init__(self) -> None:
        self.proxy: StdioMCPProxy | None = None
        self._lock = asyncio.Lock()

    async def replace(self, raw_servers: list[Any]) -> str:
        """Serve ``raw_servers`` from now on; returns the error log ("" when all started)."""
        async with self._lock:
            await self.close()
            if not raw_servers:
                return ""
            try:
                import mcp  # noqa: F401
            except ImportError:
                return "MCP proxy unavailable: the mcp package is not installed in this sandbox"
            self.proxy, errors = await StdioMCPProxy.start(raw_servers)
            if errors:
                logger.warning("MCP proxy: %s", errors)
            return errors

    async def close(self) -> None:
        proxy, self.proxy = self.proxy, None
        if proxy is not None:
            await proxy.close()


class MCPProxyRoutes:
    """ASGI middleware answering the proxy's paths; 404 while no proxy is served."""

    def __init__(self, app: ASGIApp, state: MCPProxyState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != SSE_PATH and not path.startswith(MESSAGES_PATH):
            await self.app(scope, receive, send)
            return
        proxy = self.state.proxy
        if proxy is None:
            await JSONResponse({"detail": "Not Found"}, status_code=404)(scope, receive, send)
            return
        await proxy.handle(scope, receive, send)


async def _all_tools(client: Client) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _reason(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return f"did not start within {START_TIMEOUT:g} s"
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
