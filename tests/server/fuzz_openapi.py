"""Fuzz every operation of the server's own ``/openapi.json`` with schemathesis and count 5xx.

A real server process (``ServerProcess``) is started in single-user mode or in JWT
multi-user mode; schemathesis generates valid and invalid requests for each operation in
the OpenAPI document (positive and negative generation), and every response is tallied by
status code. A 5xx is a bug: the server must answer bad input with a 4xx and a message.

By hand (the full run, >= 3,000 cases per mode)::

    .venv/bin/python -m tests.server.fuzz_openapi               # both modes, 3000 cases each
    .venv/bin/python -m tests.server.fuzz_openapi --mode jwt --cases 5000 --seed 7

It prints the status histogram per mode and each 5xx with the exact request, and exits 1
when any 5xx was seen. ``tests/server/test_fuzz_openapi.py`` runs a bounded version
(a few hundred cases, fixed seed) in the suite.

Nothing outside 127.0.0.1 is contacted: the server's GitHub API URL points at a closed
local port, and its HTTP(S) proxy variables point at a closed local port too, so a
generated provider host, LLM base URL or MCP URL never leaves the machine. The server's
``runtime`` is a sandbox class that does not exist, so conversations the fuzzer creates
fail to start a sandbox (quickly, and without running generated commands on the host);
``--runtime local`` uses real LocalRuntime sandboxes instead, and starts one of the known
conversations before fuzzing so the sandbox routes (files, git, hosts) answer for real.
Known conversation ids are substituted into part of the generated paths, except on DELETE
and /stop, which would end them for the rest of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import requests

from tests.server.helpers import settings_body, user_token, write_conversation
from tests.server.server_process import ServerProcess, config_toml, free_port
from tests.support.scripted_llm import ScriptedLLMServer, text

# A runtime class that cannot be imported: sandboxes fail to start, fast and harmlessly.
NO_SANDBOX_RUNTIME = "tests.server.fuzz_openapi.NoSuchRuntime"
FUZZ_USER = "fuzzer"
KEEP_ALIVE = {
    ("DELETE", "/api/conversations/{conversation_id}"),
    ("POST", "/api/conversations/{conversation_id}/stop"),
}
OTHER_USER = "someone-else"


@dataclass
class ServerError:
    method: str
    url: str
    status: int
    headers: dict[str, str]
    body: str
    response: str

    def describe(self) -> str:
        return (
            f"{self.status} {self.method} {self.url}\n"
            f"  headers: {json.dumps(self.headers)}\n"
            f"  body: {self.body[:500]}\n"
            f"  answer: {self.response[:300]}"
        )


@dataclass
class FuzzReport:
    mode: str
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    per_operation: Counter[str] = field(default_factory=Counter)
    server_errors: list[ServerError] = field(default_factory=list)
    transport_errors: list[str] = field(default_factory=list)
    request_seconds: float = 0.0  # waiting on the server (the rest is generating cases)
    seconds_per_operation: dict[str, float] = field(default_factory=dict)
    # The first answer seen per (operation, status): what each route said (``--verbose``).
    samples: dict[tuple[str, int], str] = field(default_factory=dict)

    @property
    def count_5xx(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def summary(self) -> str:
        lines = [
            f"[{self.mode}] {self.cases} cases over {len(self.per_operation)} operations, "
            f"{self.count_5xx} answered 5xx, {len(self.transport_errors)} transport errors "
            f"({self.request_seconds:.0f}s waiting on the server)",
            "  statuses: "
            + ", ".join(f"{status}: {n}" for status, n in sorted(self.statuses.items())),
        ]
        slowest = sorted(self.seconds_per_operation.items(), key=lambda item: -item[1])[:3]
        lines.append("  slowest: " + ", ".join(f"{op} {sec:.1f}s" for op, sec in slowest))
        seen: set[tuple[str, str, int]] = set()
        for error in self.server_errors:
            key = (error.method, error.url.split("?")[0], error.status)
            if key in seen:
                continue
            seen.add(key)
            lines.append("  " + error.describe().replace("\n", "\n  "))
        lines.extend(f"  transport: {text}" for text in self.transport_errors[:10])
        return "\n".join(lines)


def _text(content: bytes) -> str:
    return content.decode("utf-8", "replace")  # zip downloads are bytes


def _body_text(request: requests.PreparedRequest) -> str:
    body = request.body
    if body is None:
        return ""
    if isinstance(body, bytes):
        return body.decode("utf-8", "replace")
    return str(body)


def fuzz(
    base_url: str,
    *,
    cases: int,
    seed: int,
    mode: str = "single",
    headers: dict[str, str] | None = None,
    header_choices: Sequence[dict[str, str]] = (),
    conversation_ids: Sequence[str] = (),
    timeout: float = 60.0,
) -> FuzzReport:
    """Run at least ``cases`` generated requests against ``base_url`` and tally the answers.

    ``headers`` go on every request; ``header_choices`` (if any) are rotated through on top
    (for example different users' tokens). ``conversation_ids`` replace the generated
    ``conversation_id`` path parameter on part of the cases, so the routes also see
    conversations that exist."""
    import hypothesis
    import schemathesis
    from hypothesis import strategies as st
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_url(
        f"{base_url}/openapi.json", config=schemathesis.Config(), timeout=timeout
    )
    operations = []
    for result in schema.get_all_operations():
        if isinstance(result, schemathesis.core.result.Err):
            raise result.err()
        operations.append(result.ok())
    report = FuzzReport(mode=mode)
    session = requests.Session()
    session.trust_env = False  # never through a proxy: 127.0.0.1 only
    rotation = list(header_choices) or [{}]

    def send(case: Any, label: str) -> None:
        extra = {**(headers or {}), **rotation[report.cases % len(rotation)]}
        started = time.perf_counter()
        try:
            response = case.call(base_url=base_url, session=session, headers=extra, timeout=timeout)
        except requests.RequestException as error:
            report.request_seconds += time.perf_counter() - started
            report.transport_errors.append(f"{label}: {type(error).__name__}: {error}")
            report.cases += 1
            return
        report.request_seconds += time.perf_counter() - started
        spent = report.seconds_per_operation.get(label, 0.0) + time.perf_counter() - started
        report.seconds_per_operation[label] = spent
        report.cases += 1
        report.per_operation[label] += 1
        report.statuses[response.status_code] += 1
        report.samples.setdefault(
            (label, response.status_code),
            f"{response.request.url} -> {_text(response.content[:200])}",
        )
        if response.status_code >= 500:
            request = response.request
            report.server_errors.append(
                ServerError(
                    method=request.method or "",
                    url=request.url or "",
                    status=response.status_code,
                    headers={
                        k: v
                        for k, v in request.headers.items()
                        if k.lower() not in ("user-agent", "accept-encoding", "connection")
                    },
                    body=_body_text(request),
                    response=_text(response.content),
                )
            )

    def with_known_id(case: Any, conversation_id: str) -> Any:
        case.path_parameters = {**(case.path_parameters or {}), "conversation_id": conversation_id}
        return case

    def one_run(strategy: Any, label: str, *, seed: int, max_examples: int) -> Any:
        @hypothesis.seed(seed)
        @hypothesis.settings(
            max_examples=max_examples,
            database=None,
            deadline=None,
            phases=[hypothesis.Phase.generate],
            suppress_health_check=list(hypothesis.HealthCheck),
            verbosity=hypothesis.Verbosity.quiet,
        )
        @hypothesis.given(case=strategy)
        def run(case: Any) -> None:
            send(case, label)

        return run

    # Negative cases need a query parameter or a body to break: with only path and header
    # strings (any string is valid there) schemathesis has none to offer.
    runs = [
        (index, operation, generation_mode)
        for index, operation in enumerate(operations)
        for generation_mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
        if generation_mode is GenerationMode.POSITIVE or len(operation.query) or len(operation.body)
    ]
    round_number = 0
    while report.cases < cases and runs:
        before = report.cases
        budget = max(1, -(-(cases - report.cases) // len(runs)))
        exhausted = []
        for index, operation, generation_mode in runs:
            label = f"{operation.method.upper()} {operation.path}"
            strategy = operation.as_strategy(generation_mode=generation_mode)
            # Known ids everywhere but where they would end: deleted or stopped in the first
            # round, they would be missing (or not running) for every later one.
            ends = (operation.method.upper(), operation.path) in KEEP_ALIVE
            if conversation_ids and "{conversation_id}" in operation.path and not ends:
                known = st.sampled_from(list(conversation_ids))
                strategy = st.one_of(
                    strategy, st.tuples(strategy, known).map(lambda pair: with_known_id(*pair))
                )
            sent = report.cases
            mode_number = 0 if generation_mode is GenerationMode.POSITIVE else 1
            run = one_run(
                strategy,
                label,
                seed=seed * 1_000_003 + round_number * 1009 + index * 2 + mode_number,
                max_examples=budget,
            )
            try:
                run()
            except hypothesis.errors.Unsatisfiable:
                # Nothing to generate (e.g. no negative case for a route whose only
                # parameter is any string): not tried again.
                exhausted.append((index, operation, generation_mode))
            if report.cases - sent < budget // 2:
                exhausted.append((index, operation, generation_mode))  # its space is small
        runs = [run for run in runs if run not in exhausted]
        round_number += 1
        if report.cases == before:
            break
    return report


# --- the server under test -----------------------------------------------------------------------


def fuzz_server_env(dead_port: int) -> dict[str, str]:
    """Keep everything the server reaches out to on 127.0.0.1 (see the module docstring)."""
    dead = f"http://127.0.0.1:{dead_port}"
    return {
        "GITHUB_API_URL": dead,
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "ALL_PROXY": dead,
        "http_proxy": dead,
        "https_proxy": dead,
        "all_proxy": dead,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        # A bad LLM base URL must not hold a request for long.
        "LLM_TIMEOUT": "10",
    }


@contextmanager
def fuzz_target(
    root: Path, mode: str, llm: ScriptedLLMServer, runtime: str = NO_SANDBOX_RUNTIME
) -> Iterator[tuple[ServerProcess, dict[str, Any]]]:
    """A started server for ``mode`` (``single`` or ``jwt``) with settings stored and a few
    conversations written into its store; yields it with the fuzz arguments for it."""
    env = fuzz_server_env(free_port())
    if mode == "jwt":
        env["OPENHANDS_USER_AUTH"] = "jwt"
    config = config_toml(root, runtime=runtime, max_concurrent_conversations=2)
    server = ServerProcess(root, env=env, config=config).start()
    try:
        user = FUZZ_USER if mode == "jwt" else None
        auth = {"Authorization": f"Bearer {user_token(FUZZ_USER)}"} if user else {}
        stored = httpx.post(
            f"{server.url}/api/settings", json=settings_body(llm.base_url), headers=auth
        )
        assert stored.status_code == 200, stored.text
        ids = [write_conversation(server.store, user_id=user, title="fuzz") for _ in range(2)]
        if runtime != NO_SANDBOX_RUNTIME:
            _start_and_wait(server.url, ids[0], auth)
        kwargs: dict[str, Any] = {"mode": mode, "conversation_ids": ids, "headers": auth}
        if mode == "jwt":
            ids.append(write_conversation(server.store, user_id=OTHER_USER, title="not yours"))
            kwargs["headers"] = {}
            kwargs["header_choices"] = [
                auth,
                auth,
                {"Authorization": f"Bearer {user_token(OTHER_USER)}"},
                {},
                {"Authorization": "Bearer not-a-jwt"},
            ]
        yield server, kwargs
    finally:
        server.stop()


def _start_and_wait(url: str, conversation_id: str, headers: dict[str, str]) -> None:
    """Start one known conversation and wait until its sandbox is ready, so the sandbox
    routes get fuzzed against a running one (polling: this is a by-hand tool)."""
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        started = http.post(f"/api/conversations/{conversation_id}/start", json={})
        assert started.status_code == 200, started.text
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            info = http.get(f"/api/conversations/{conversation_id}").json()
            if info["status"] == "RUNNING" and info["runtime_status"] == "STATUS$READY":
                return
            time.sleep(0.5)
    raise TimeoutError(f"{conversation_id} did not start")


def run_mode(
    mode: str, cases: int, seed: int, root: Path, runtime: str = NO_SANDBOX_RUNTIME
) -> FuzzReport:
    llm = ScriptedLLMServer([], fallback=lambda body: text("<update_prompt>fuzz</update_prompt>"))
    llm.start()
    try:
        with fuzz_target(root, mode, llm, runtime) as (server, kwargs):
            report = fuzz(server.url, cases=cases, seed=seed, **kwargs)
            if report.server_errors:
                print(f"--- server log tail ({mode}) ---\n{server.log_tail(80)}", file=sys.stderr)
            return report
    finally:
        llm.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("single", "jwt", "both"), default="both")
    parser.add_argument("--cases", type=int, default=3000, help="at least this many per mode")
    parser.add_argument("--seed", type=int, default=20251010)
    parser.add_argument("--workdir", type=Path, help="keep the servers' directories here")
    parser.add_argument(
        "--verbose", action="store_true", help="print one answer per operation and status"
    )
    parser.add_argument(
        "--runtime",
        default=NO_SANDBOX_RUNTIME,
        help="the server's runtime (default: none can start; 'local' for LocalRuntime)",
    )
    args = parser.parse_args(argv)
    modes = ("single", "jwt") if args.mode == "both" else (args.mode,)
    failed = False
    with tempfile.TemporaryDirectory(prefix="oh-fuzz-") as tmp:
        for mode in modes:
            started = time.monotonic()
            root = (args.workdir or Path(tmp)) / mode
            report = run_mode(mode, args.cases, args.seed, root, args.runtime)
            print(report.summary())
            if args.verbose:
                for (label, status), sample in sorted(report.samples.items()):
                    print(f"  {status} {label}: {sample}")
            print(f"[{mode}] took {time.monotonic() - started:.0f}s", flush=True)
            failed = failed or report.count_5xx > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
