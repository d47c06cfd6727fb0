"""How the service is configured: command line first, then ``OH_RUNTIME_API_*`` variables."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from openhands.runtime.remote_api.engine_tls import engine_tls
from openhands.runtime.remote_api.sandboxes import GIB, Limits
from openhands.runtime.remote_api.store import DEFAULT_NAMESPACE

ENV_PREFIX = "OH_RUNTIME_API_"
DEFAULT_ENGINE = "unix:///var/run/docker.sock"


@dataclass(frozen=True)
class ServiceSettings:
    engines: list[str]
    redis_url: str
    api_key: str = field(repr=False)
    namespace: str = DEFAULT_NAMESPACE
    publish_host: str = "127.0.0.1"
    registry_prefix: str = "openhands"
    limits: Limits = field(default_factory=Limits)
    host: str = "127.0.0.1"
    port: int = 8000
    # The TLS files of the tcp:// engines (engine_tls.py); unix:// engines need none.
    tls_cert_path: Path | None = None
    # Idle sandboxes kept started on every engine (warm_pool.py); 0 = none.
    warm_pool_size: int = 0


def parse_settings(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> ServiceSettings:
    env = os.environ if env is None else env

    def default(name: str, fallback: str | None = None) -> str | None:
        return env.get(ENV_PREFIX + name, fallback)

    parser = argparse.ArgumentParser(
        prog="python -m openhands.runtime.remote_api",
        description="Runtime API over a pool of Docker engines (remote-runtime.md §4).",
    )
    parser.add_argument("--host", default=default("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(default("PORT", "8000") or 8000))
    parser.add_argument(
        "--engines",
        default=default("ENGINES", env.get("DOCKER_HOST", DEFAULT_ENGINE)),
        help="comma-separated engine URLs, unix:///path or tcp://HOST:PORT with TLS "
        "(default: $DOCKER_HOST or the local engine)",
    )
    parser.add_argument(
        "--tls-cert-path",
        default=default("TLS_CERT_PATH", env.get("DOCKER_CERT_PATH") or None),
        help="folder of ca.pem, cert.pem and key.pem for the tcp:// engines, or of one "
        "HOST:PORT subfolder per engine (default: $DOCKER_CERT_PATH)",
    )
    parser.add_argument("--redis", default=default("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument(
        "--api-key-file",
        default=default("API_KEY_FILE"),
        help=f"file holding the API key (or set {ENV_PREFIX}API_KEY)",
    )
    parser.add_argument("--namespace", default=default("NAMESPACE", DEFAULT_NAMESPACE))
    parser.add_argument("--publish-host", default=default("PUBLISH_HOST", "127.0.0.1"))
    parser.add_argument("--registry-prefix", default=default("REGISTRY_PREFIX", "openhands"))
    parser.add_argument(
        "--memory-gib", type=float, default=float(default("MEMORY_GIB", "4") or 4),
        help="memory per unit of resource_factor",
    )  # fmt: skip
    parser.add_argument(
        "--cpus", type=float, default=float(default("CPUS", "2") or 2),
        help="CPUs per unit of resource_factor (capped to the engine's)",
    )  # fmt: skip
    parser.add_argument(
        "--warm-pool-size", type=int, default=int(default("WARM_POOL_SIZE", "0") or 0),
        help="idle sandboxes kept started per engine, of the latest /start's kind (0 = none)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if not 0 <= args.warm_pool_size <= 64:
        parser.error("--warm-pool-size must be between 0 and 64")

    if args.api_key_file:
        api_key = Path(args.api_key_file).read_text().strip()
    else:
        api_key = default("API_KEY", "") or ""
    if not api_key:
        parser.error(f"an API key is required: --api-key-file or {ENV_PREFIX}API_KEY")
    engines = [url.strip() for url in str(args.engines).split(",") if url.strip()]
    if not engines:
        parser.error("at least one engine is required (--engines)")
    tls_cert_path = Path(args.tls_cert_path) if args.tls_cert_path else None
    for url in engines:
        try:
            engine_tls(url, tls_cert_path)
        except ValueError as exc:
            parser.error(str(exc))
    return ServiceSettings(
        engines=engines,
        redis_url=args.redis,
        api_key=api_key,
        namespace=args.namespace,
        publish_host=args.publish_host,
        registry_prefix=args.registry_prefix,
        limits=Limits(memory_bytes=int(args.memory_gib * GIB), cpus=args.cpus),
        host=args.host,
        port=args.port,
        tls_cert_path=tls_cert_path,
        warm_pool_size=args.warm_pool_size,
    )
