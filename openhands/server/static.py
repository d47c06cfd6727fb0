"""The single-page app at `/`: built files, `index.html` for client routes, JSON for `/api`."""

from __future__ import annotations

import os

from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

_READ_METHODS = ("GET", "HEAD")
_NOT_BUILT = """<!doctype html>
<html><head><meta charset="utf-8"><title>OpenHands</title></head>
<body><h1>OpenHands</h1>
<p>The web UI isn't built. Run <code>make build</code> (it builds <code>frontend/build</code>),
then reload this page. The API is up: see <a href="/docs">/docs</a>.</p></body></html>
"""


def _is_api(path: str) -> bool:
    path = path.lstrip("/")
    return path == "api" or path.startswith("api/") or path.startswith("socket.io")


def _not_found() -> Response:
    return JSONResponse({"detail": "Not Found"}, status_code=404)


def _method_not_allowed() -> Response:
    return JSONResponse({"detail": "Method Not Allowed"}, status_code=405)


class SPAStaticFiles(StaticFiles):
    """Unknown paths get `index.html` (client routes); unknown `/api/...` gets a JSON 404."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if scope["method"] not in _READ_METHODS:
            return _method_not_allowed()
        if _is_api(path):
            return _not_found()
        try:
            return await super().get_response(path, scope)
        except HTTPException as error:
            if error.status_code != 404:
                raise
        return await super().get_response("index.html", scope)


class FrontendNotBuilt:
    """Stands in for the SPA when `frontend/build` is missing."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        response: Response
        if scope["method"] not in _READ_METHODS:
            response = _method_not_allowed()
        elif _is_api(scope["path"]):
            response = _not_found()
        else:
            response = HTMLResponse(_NOT_BUILT)
        await response(scope, receive, send)


def frontend_app(directory: str) -> SPAStaticFiles | FrontendNotBuilt:
    if os.path.isfile(os.path.join(directory, "index.html")):
        return SPAStaticFiles(directory=directory, html=True)
    return FrontendNotBuilt()
