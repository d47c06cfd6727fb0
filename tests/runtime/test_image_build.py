"""Building the sandbox image for real: base from debootstrap, runtime image on top, reuse by
content hash, a source-only change rebuilt from the lock image (runtime.md §12.2, §15)."""

from __future__ import annotations

import contextlib
import re
import shutil
from pathlib import Path

import pytest
from docker.errors import ImageNotFound

from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.errors import AgentRuntimeImageNotFoundError
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.runtime.utils.runtime_hash import (
    OH_VERSION,
    PROJECT_ROOT,
    SERVER_SOURCES,
    get_runtime_image_repo,
)

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]


class CountingBuilder(DockerRuntimeBuilder):
    """The real builder, remembering which builds it ran."""

    def __init__(self, inner: DockerRuntimeBuilder) -> None:
        super().__init__(inner.client)
        self.builds: list[list[str]] = []

    def build(self, path, tags, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        self.builds.append(list(tags))
        return super().build(path, tags, *args, **kwargs)


@pytest.fixture(scope="module")
def runtime_image(docker_builder: DockerRuntimeBuilder) -> str:
    return build_runtime_image(DEFAULT_BASE_IMAGE, docker_builder)


def run_in(builder: DockerRuntimeBuilder, image: str, *command: str, user: str = "root") -> str:
    output = builder.client.containers.run(
        image, list(command), remove=True, user=user, network_disabled=True
    )
    return output.decode().strip()


def test_image_name_follows_the_tag_scheme(runtime_image: str) -> None:
    repo = re.escape(get_runtime_image_repo())
    version = re.escape(OH_VERSION)
    assert re.fullmatch(rf"{repo}:oh_v{version}_[0-9a-z]{{1,16}}_[0-9a-z]{{1,16}}", runtime_image)


def test_second_build_reuses_the_image(
    runtime_image: str, docker_builder: DockerRuntimeBuilder
) -> None:
    counting = CountingBuilder(docker_builder)
    assert build_runtime_image(DEFAULT_BASE_IMAGE, counting) == runtime_image
    assert counting.builds == []


def test_lock_and_versioned_tags_exist(
    runtime_image: str, docker_builder: DockerRuntimeBuilder
) -> None:
    repo, source_tag = runtime_image.split(":", 1)
    lock_tag = source_tag.rsplit("_", 1)[0]
    assert docker_builder.image_exists(f"{repo}:{lock_tag}")
    versioned = f"{repo}:oh_v{OH_VERSION}_openhands-sandbox-base_t_bookworm"
    assert docker_builder.image_exists(versioned)


def test_container_runs_python(runtime_image: str, docker_builder: DockerRuntimeBuilder) -> None:
    assert run_in(docker_builder, runtime_image, "python3", "-c", "print(6 * 7)") == "42"


def test_server_python_imports_our_package(
    runtime_image: str, docker_builder: DockerRuntimeBuilder
) -> None:
    code = (
        "import openhands.runtime.utils.bash, openhands.runtime.utils.files, "
        "openhands.runtime.utils.editor, openhands.events.serialization, fastapi, uvicorn; "
        "print('imports ok')"
    )
    out = run_in(docker_builder, runtime_image, "/openhands/venv/bin/python", "-c", code)
    assert out == "imports ok"


def test_image_layout(runtime_image: str, docker_builder: DockerRuntimeBuilder) -> None:
    script = (
        "id -u openhands; id -nG openhands; "
        "su openhands -c 'sudo -n true && echo sudo-ok'; "
        "stat -c %U /workspace; test -d /openhands/code/openhands && echo code-ok; "
        "command -v tmux git curl sudo >/dev/null && echo tools-ok; "
        "grep -c OH_INTERPRETER_PATH=/openhands/venv/bin/python /etc/environment"
    )
    lines = run_in(docker_builder, runtime_image, "bash", "-c", script).splitlines()
    assert lines[0] == "1000"
    assert "sudo" in lines[1].split()
    assert lines[2:] == ["sudo-ok", "openhands", "code-ok", "tools-ok", "1"]


def test_tmux_bash_session_works_inside(
    runtime_image: str, docker_builder: DockerRuntimeBuilder
) -> None:
    code = (
        "from openhands.events.action import CmdRunAction\n"
        "from openhands.runtime.utils.bash import BashSession\n"
        "s = BashSession('/workspace', username='openhands')\n"
        "s.initialize()\n"
        "o = s.execute(CmdRunAction(command='whoami && echo $HOME'))\n"
        "print(repr(o.content), o.exit_code, o.metadata.working_dir)\n"
        "s.close()\n"
    )
    out = run_in(docker_builder, runtime_image, "/openhands/venv/bin/python", "-c", code)
    assert out == "'openhands\\n/home/openhands' 0 /workspace"


def test_source_change_builds_from_the_lock_image(
    runtime_image: str, docker_builder: DockerRuntimeBuilder, tmp_path: Path
) -> None:
    for entry in SERVER_SOURCES:
        source, target = PROJECT_ROOT / entry, tmp_path / entry
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    (tmp_path / "openhands" / "runtime" / "marker_for_test.py").write_text("MARK = 'changed'\n")

    counting = CountingBuilder(docker_builder)
    lines: list[str] = []
    image = build_runtime_image(
        DEFAULT_BASE_IMAGE, counting, source_root=tmp_path, progress=lines.append
    )
    try:
        assert image != runtime_image
        assert image.rsplit("_", 1)[0] == runtime_image.rsplit("_", 1)[0]  # same lock tag
        assert len(counting.builds) == 1
        lock_image = runtime_image.rsplit("_", 1)[0]
        assert any(f"FROM {lock_image}" in line for line in lines), lines[:5]
        code = "import openhands.runtime.marker_for_test as m; print(m.MARK)"
        out = run_in(docker_builder, image, "/openhands/venv/bin/python", "-c", code)
        assert out == "changed"
    finally:
        docker_builder.client.images.remove(image)


def test_missing_custom_base_image_is_an_error_not_a_pull(
    docker_builder: DockerRuntimeBuilder,
) -> None:
    with pytest.raises(AgentRuntimeImageNotFoundError, match="no-such-base:1 does not exist"):
        build_runtime_image("no-such-base:1", docker_builder)


def test_a_background_build_runs_its_steps_under_a_cpu_cap(
    runtime_image: str, docker_builder: DockerRuntimeBuilder, tmp_path: Path
) -> None:
    """The VS Code variant builds while conversations run: its steps must not take every
    CPU. A step reads its own cgroup's quota: capped for a background build, unlimited for
    an ordinary one."""
    (tmp_path / "Dockerfile").write_text(
        f"FROM {runtime_image}\n"
        "RUN (cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null"
        " || cut -d' ' -f1 /sys/fs/cgroup/cpu.max) > /quota\n"
    )
    tag = f"{get_runtime_image_repo()}:background-build-test"
    background = DockerRuntimeBuilder(docker_builder.client, background=True)
    try:
        # No layer cache: each build must run the step itself.
        background.build(tmp_path, [tag], extra_build_args=["--no-cache"])
        capped = run_in(docker_builder, tag, "cat", "/quota").strip()
        docker_builder.build(tmp_path, [tag], extra_build_args=["--no-cache"])
        ordinary = run_in(docker_builder, tag, "cat", "/quota").strip()
    finally:
        with contextlib.suppress(ImageNotFound):
            docker_builder.client.images.remove(tag, force=True)
    assert capped.isdigit() and int(capped) > 0, capped
    assert ordinary in ("-1", "max"), ordinary
