"""Which repository a pasted web URL points at.

A user may paste a repository's address into the repository search
(``https://github.com/owner/repo/tree/main/src``); the services then look that one
repository up instead of searching for the text.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def url_path_segments(url: str) -> list[str] | None:
    """The non-empty path segments of an ``http(s)://host/...`` URL (query and fragment
    dropped), or None for anything else."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return [segment for segment in parts.path.split("/") if segment]


def repository_from_url(url: str) -> str | None:
    """``owner/repo`` of a GitHub or Bitbucket URL (later segments are pages inside the
    repository), or None when the URL names no repository."""
    segments = url_path_segments(url)
    if not segments or len(segments) < 2:
        return None
    return f"{segments[0]}/{segments[1].removesuffix('.git')}"


def gitlab_project_from_url(url: str) -> str | None:
    """``group[/subgroup…]/project`` of a GitLab URL (GitLab ends the project's path with
    a ``-`` segment before its pages: ``/group/project/-/tree/main``), or None when the
    URL names no project."""
    segments = url_path_segments(url)
    if segments is None:
        return None
    if "-" in segments:
        segments = segments[: segments.index("-")]
    if len(segments) < 2:
        return None
    segments[-1] = segments[-1].removesuffix(".git")
    return "/".join(segments)
