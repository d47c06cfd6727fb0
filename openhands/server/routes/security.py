"""The security analyzer's own API, per conversation (server-api §6.4, QUIRK fixed).

0.59 registered a catch-all at `/security/{path}` that could never find its conversation.
Here it lives under the conversation and reaches that conversation's analyzer; the UI's
`/api/security/*` calls (which 0.59 never served) get a JSON 404.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, AttachedConversation
from openhands.server.errors import ErrorBodyError, MappedErrorsRoute

security_api_router = APIRouter(route_class=MappedErrorsRoute, tags=["security"])
_METHODS = ["GET", "POST", "PUT", "DELETE"]


async def security_api(request: Request, conversation: AttachedConversation) -> Response:
    analyzer = conversation.security_analyzer
    if analyzer is None:
        raise ErrorBodyError("Security analyzer not initialized", 404)
    try:
        response: Response = await analyzer.handle_api_request(request)
        return response
    except NotImplementedError as error:  # an analyzer without an API of its own
        raise ErrorBodyError(str(error), 501) from error


async def no_global_security_api(path: str) -> JSONResponse:
    return JSONResponse({"detail": "Not Found"}, status_code=404)


for _method in _METHODS:
    security_api_router.add_api_route(
        "/api/conversations/{conversation_id}/security/{path:path}",
        security_api,
        methods=[_method],
        dependencies=API_GUARDS,
        operation_id=f"security_api_{_method.lower()}",
        responses={
            404: errors.error("No such conversation or sandbox, or no security analyzer"),
            501: errors.error("The configured analyzer has no API of its own"),
        },
    )
    security_api_router.add_api_route(
        "/api/security/{path:path}",
        no_global_security_api,
        methods=[_method],
        operation_id=f"no_global_security_api_{_method.lower()}",
        responses={404: errors.detail("Always: the analyzer API is per conversation")},
    )


app = security_api_router  # the reference's name of this router
