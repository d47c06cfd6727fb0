"""Pieces of the debootstrap base image recipe that need no engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.runtime.builder.base_image import (
    BASE_PACKAGES,
    base_packages_key,
    find_debian_mirror,
    keyed_base_image,
)
from openhands.runtime.errors import AgentRuntimeBuildError

DEB822 = """\
Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
"""


def test_mirror_from_deb822(tmp_path: Path) -> None:
    sources = tmp_path / "debian.sources"
    sources.write_text(DEB822)
    assert find_debian_mirror((sources,)) == "http://mirror.example/debian"


def test_mirror_skips_the_security_stanza(tmp_path: Path) -> None:
    sources = tmp_path / "debian.sources"
    sources.write_text(DEB822.split("\n\n")[1])
    with pytest.raises(AgentRuntimeBuildError, match="No apt mirror for the bookworm suite"):
        find_debian_mirror((sources,))


def test_mirror_from_one_line_format(tmp_path: Path) -> None:
    listing = tmp_path / "sources.list"
    listing.write_text(
        "# deb http://old.example/debian bookworm main\n"
        "deb [arch=amd64] http://one.example/debian bookworm main contrib\n"
    )
    missing = tmp_path / "debian.sources"
    assert find_debian_mirror((missing, listing)) == "http://one.example/debian"


def test_host_mirror_is_found() -> None:
    # Every machine we run on is Debian 12 with its apt configuration in place.
    assert find_debian_mirror().startswith(("http://", "https://"))


def test_package_key_follows_the_package_list() -> None:
    key = base_packages_key()
    assert key == base_packages_key(tuple(reversed(BASE_PACKAGES)))
    assert key != base_packages_key((*BASE_PACKAGES, "vim"))
    assert keyed_base_image().endswith(f":bookworm-{key}")


def test_base_has_what_the_server_needs() -> None:
    needed = {"python3", "python3-venv", "tmux", "git", "sudo", "procps", "ca-certificates", "curl"}
    assert needed <= set(BASE_PACKAGES)
