"""A scripted OpenAI-compatible chat-completions server for tests and manual runs.

The server runs on 127.0.0.1 in a background thread and answers each
``POST /v1/chat/completions`` (or any other path ending in ``/chat/completions``) with
the next item of its script; ``GET /v1/models`` lists one model. Set ``model_info`` to a list
of ``{"model_name": ..., "model_info": {...}}`` entries to answer ``GET .../model/info`` like a
LiteLLM proxy (404 while it is None). Every request is recorded so tests can assert on what the client sent.

Script items:

* ``text("hello")`` - a plain assistant message;
* ``tool_call("execute_bash", {"command": "ls"})`` / ``tool_calls([...])`` - an assistant
  message with OpenAI ``tool_calls`` (ids are generated: ``call_scripted_<n>``);
* ``rate_limit_error()``, ``server_error()``, ``service_unavailable()``, ``auth_error()``,
  ``context_window_error()``, ``bad_request(msg)`` - an HTTP error with an OpenAI-style error body;
* ``no_choices()`` - a 200 response with an empty ``choices`` list;
* any callable taking the request JSON and returning one of the items above.

A request with ``"stream": true`` gets the same item as server-sent events: OpenAI
``chat.completion.chunk`` objects (the content word by word, then one chunk per tool call,
then the finish reason; a usage chunk if ``stream_options.include_usage`` is set) and
``data: [DONE]``. Errors are answered as plain JSON either way.

When the script is exhausted the server answers with the ``fallback`` item if one is set,
otherwise with HTTP 400 ``scripted_llm: script exhausted`` (a non-retried error, so a test
that asks for more than it scripted fails fast).

Command line: ``python -m tests.support.scripted_llm --port 8011 --script script.json``.
The JSON file holds a list; see :func:`item_from_json` for the item forms.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Anything that imports LiteLLM next to this server must not try to download its cost map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DEFAULT_MODEL = "test-model"

# --------------------------------------------------------------------------------------
# Script items
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Token counts to report. ``None`` prompt/completion counts are estimated from text."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int = 0
    cache_creation_tokens: int = 0


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A successful (HTTP 200) completion."""

    content: str | None = ""
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    usage: Usage = Usage()
    finish_reason: str | None = None
    cost: float | None = None  # sent as the x-litellm-response-cost header
    no_choices: bool = False


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with an OpenAI-style ``{"error": {...}}`` body."""

    status: int
    message: str
    # None: "server_error" for 5xx, else "invalid_request_error" (LiteLLM reads this type:
    # an invalid_request_error body maps to BadRequestError whatever the status).
    type: str | None = None
    code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


ScriptItem = Reply | ErrorReply
Responder = Callable[[dict[str, Any]], ScriptItem]
ScriptEntry = ScriptItem | Responder


def text(content: str, usage: Usage | None = None, cost: float | None = None) -> Reply:
    return Reply(content=content, usage=usage or Usage(), cost=cost)


def tool_call(
    name: str,
    arguments: dict[str, Any] | str | None = None,
    content: str | None = "",
    call_id: str | None = None,
    usage: Usage | None = None,
) -> Reply:
    call = ScriptedToolCall(name=name, arguments=arguments or {}, id=call_id)
    return Reply(content=content, tool_calls=(call,), usage=usage or Usage())


def tool_calls(
    calls: Iterable[tuple[str, dict[str, Any] | str]],
    content: str | None = "",
    usage: Usage | None = None,
) -> Reply:
    scripted = tuple(ScriptedToolCall(name=n, arguments=a) for n, a in calls)
    return Reply(content=content, tool_calls=scripted, usage=usage or Usage())


def no_choices() -> Reply:
    return Reply(no_choices=True)


def rate_limit_error(retry_after: float | None = None) -> ErrorReply:
    headers = (("retry-after", str(retry_after)),) if retry_after is not None else ()
    return ErrorReply(
        status=429,
        message="Rate limit reached for test-model on requests per min. Please try again later.",
        type="requests",
        code="rate_limit_exceeded",
        headers=headers,
    )


def service_unavailable() -> ErrorReply:
    return ErrorReply(status=503, message="The engine is currently overloaded, please try later.")


def server_error() -> ErrorReply:
    return ErrorReply(
        status=500,
        message="The server had an error while processing your request. Sorry about that!",
        type="server_error",
    )


def auth_error() -> ErrorReply:
    return ErrorReply(
        status=401,
        message="Incorrect API key provided: x. You can find your API key in your account settings.",
        code="invalid_api_key",
    )


def context_window_error(limit: int = 8192, used: int = 9001) -> ErrorReply:
    return ErrorReply(
        status=400,
        message=(
            f"This model's maximum context length is {limit} tokens. However, your messages "
            f"resulted in {used} tokens. Please reduce the length of the messages."
        ),
        code="context_length_exceeded",
    )


def bad_request(message: str) -> ErrorReply:
    return ErrorReply(status=400, message=message)


def item_from_json(data: Any) -> ScriptItem:
    """Build an item from its JSON form (used by script files).

    Forms: ``"text"``; ``{"text": "..."}``; ``{"content": "...", "tool_calls":
    [{"name": ..., "arguments": {...}}]}``; ``{"error": 429 | 500 | 503 | 401 |
    "context_window" | "rate_limit" | "server" | "auth", "message"?: ...}``.
    """
    if isinstance(data, str):
        return text(data)
    if not isinstance(data, dict):
        raise ValueError(f"unsupported script item: {data!r}")
    if "error" in data:
        kind = data["error"]
        named: dict[Any, Callable[[], ErrorReply]] = {
            429: rate_limit_error,
            "rate_limit": rate_limit_error,
            500: server_error,
            "server": server_error,
            503: service_unavailable,
            401: auth_error,
            "auth": auth_error,
            "context_window": context_window_error,
        }
        if kind in named:
            return named[kind]()
        return ErrorReply(status=int(kind), message=str(data.get("message", "scripted error")))
    if "tool_calls" in data:
        calls = tuple(
            ScriptedToolCall(name=c["name"], arguments=c.get("arguments", {}), id=c.get("id"))
            for c in data["tool_calls"]
        )
        return Reply(content=data.get("content", ""), tool_calls=calls)
    if "text" in data:
        return text(str(data["text"]))
    raise ValueError(f"unsupported script item: {data!r}")


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------


def _estimate_tokens(value: Any) -> int:
    """A rough, deterministic count: one token per four characters of text, at least 1."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def _render_tool_call(call: ScriptedToolCall, fallback_id: str) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {
        "id": call.id or fallback_id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def render_reply(
    reply: Reply, request: dict[str, Any], response_id: str, next_call_id: Callable[[], str]
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [_render_tool_call(c, next_call_id()) for c in reply.tool_calls]
    finish_reason = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    usage = reply.usage
    prompt_tokens = (
        usage.prompt_tokens
        if usage.prompt_tokens is not None
        else _estimate_tokens(request.get("messages", []))
    )
    completion_tokens = (
        usage.completion_tokens
        if usage.completion_tokens is not None
        else _estimate_tokens(message)
    )
    usage_json: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if usage.cached_tokens:
        usage_json["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    if usage.cache_creation_tokens:
        usage_json["cache_creation_input_tokens"] = usage.cache_creation_tokens
    choices = (
        []
        if reply.no_choices
        else [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}]
    )
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", DEFAULT_MODEL),
        "choices": choices,
        "usage": usage_json,
    }


def render_stream(payload: dict[str, Any], include_usage: bool = False) -> list[dict[str, Any]]:
    """The chunks of a streamed answer carrying the same reply as ``payload``."""
    header = {key: payload[key] for key in ("id", "created", "model")}
    chunks: list[dict[str, Any]] = []

    def add(delta: dict[str, Any], finish_reason: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        chunks.append({**header, "object": "chat.completion.chunk", "choices": [choice]})

    for choice in payload["choices"]:
        message = choice["message"]
        pieces = re.findall(r"\s*\S+\s*", message.get("content") or "") or [""]
        for i, piece in enumerate(pieces):
            add({"role": "assistant", "content": piece} if i == 0 else {"content": piece})
        for i, call in enumerate(message.get("tool_calls") or []):
            add({"tool_calls": [{"index": i, **call}]})
        add({}, choice["finish_reason"])
    if include_usage:
        chunks.append(
            {**header, "object": "chat.completion.chunk", "choices": [], "usage": payload["usage"]}
        )
    return chunks


def render_error(error: ErrorReply) -> dict[str, Any]:
    error_type = error.type or ("server_error" if error.status >= 500 else "invalid_request_error")
    return {
        "error": {"message": error.message, "type": error_type, "param": None, "code": error.code}
    }


# --------------------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]  # {} for a request without a JSON object body

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        return self.body.get("tools")


class ScriptedLLMServer:
    """An OpenAI-compatible HTTP server that replays a script. Use as a context manager."""

    def __init__(
        self,
        script: Iterable[ScriptEntry] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        fallback: ScriptEntry | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._script: deque[ScriptEntry] = deque(script)
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self.fallback = fallback
        self.model_info: list[dict[str, Any]] | None = None
        self.exhausted_calls = 0
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> ScriptedLLMServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="scripted-llm",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- addresses -------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The value for ``LLMConfig.base_url`` (OpenAI clients append ``/chat/completions``)."""
        return f"{self.url}/v1"

    def llm_config(self, model: str = f"openai/{DEFAULT_MODEL}", **overrides: Any) -> Any:
        """An ``LLMConfig`` pointed at this server, with near-zero retry waits."""
        from openhands.core.config import LLMConfig

        values: dict[str, Any] = {
            "model": model,
            "base_url": self.base_url,
            "api_key": "x",
            "num_retries": 3,
            "retry_min_wait": 0,
            "retry_max_wait": 0,
            "retry_multiplier": 0,
        }
        values.update(overrides)
        return LLMConfig(**values)

    # --- script ----------------------------------------------------------------------

    def push(self, *items: ScriptEntry) -> None:
        with self._lock:
            self._script.extend(items)

    def set_script(self, items: Iterable[ScriptEntry]) -> None:
        with self._lock:
            self._script = deque(items)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def completion_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def last_request(self) -> RecordedRequest:
        requests = self.completion_requests
        if not requests:
            raise AssertionError("the scripted LLM has received no completion request")
        return requests[-1]

    # --- request handling (called from handler threads) ------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_entry(self) -> ScriptEntry | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
            self.exhausted_calls += 1
            return self.fallback

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        entry = self._next_entry()
        if entry is None:
            return 400, render_error(bad_request("scripted_llm: script exhausted")), {}
        item = entry if isinstance(entry, Reply | ErrorReply) else entry(body)
        if isinstance(item, ErrorReply):
            return item.status, render_error(item), dict(item.headers)
        response_id = f"chatcmpl-scripted-{next(self._ids)}"
        payload = render_reply(
            item, body, response_id, lambda: f"call_scripted_{next(self._call_ids)}"
        )
        headers = {} if item.cost is None else {"x-litellm-response-cost": repr(item.cost)}
        return 200, payload, headers


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ScriptedLLM/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
            return

        def _send_json(self, status: int, payload: Any, headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_events(self, chunks: list[dict[str, Any]], headers: dict[str, str]) -> None:
            events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
            data = ("".join(events) + "data: [DONE]\n\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _read_json(self) -> dict[str, Any] | None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return None
            parsed = json.loads(raw)
            return parsed if isinstance(parsed, dict) else None

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            server._record(RecordedRequest("GET", path, dict(self.headers), {}))
            if path in ("/v1/models", "/models"):
                model = {"id": DEFAULT_MODEL, "object": "model", "created": 0, "owned_by": "tests"}
                self._send_json(200, {"object": "list", "data": [model]}, {})
            elif path.endswith("/model/info") and server.model_info is not None:
                self._send_json(200, {"data": server.model_info}, {})
            else:
                self._send_json(404, render_error(ErrorReply(404, "not found")), {})

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            try:
                body = self._read_json()
            except (ValueError, UnicodeDecodeError):
                self._send_json(400, render_error(bad_request("invalid JSON body")), {})
                return
            server._record(RecordedRequest("POST", path, dict(self.headers), body or {}))
            # /v1/chat/completions, /chat/completions, Azure's /openai/deployments/X/chat/...
            if not path.endswith("/chat/completions"):
                self._send_json(404, render_error(ErrorReply(404, "not found")), {})
                return
            try:
                status, payload, headers = server._answer(body or {})
            except Exception as exc:  # a failing responder must not kill the connection
                status = int(HTTPStatus.BAD_REQUEST)
                payload = render_error(bad_request(f"scripted_llm: responder failed: {exc!r}"))
                headers = {}
            request = body or {}
            if status == 200 and request.get("stream"):
                options = request.get("stream_options") or {}
                include_usage = bool(options.get("include_usage"))
                self._send_events(render_stream(payload, include_usage), headers)
            else:
                self._send_json(status, payload, headers)

    return Handler


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a scripted OpenAI-compatible LLM.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file with a list of script items")
    parser.add_argument("--fallback-text", help="reply with this text once the script is done")
    args = parser.parse_args(argv)

    items: list[ScriptEntry] = []
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            items = [item_from_json(x) for x in json.load(f)]
    fallback = text(args.fallback_text) if args.fallback_text is not None else None
    server = ScriptedLLMServer(items, host=args.host, port=args.port, fallback=fallback)
    server.start()
    print(f"scripted LLM listening on {server.base_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
