"""The error responses of the OpenAPI document (app.add_error_responses, errors.py models)."""

from __future__ import annotations

import copy

from openhands.server.app import add_error_responses, create_app
from openhands.server.services.git_providers import is_plausible_token


def _document() -> dict:
    return create_app().openapi()


def test_shared_errors_are_derived_and_route_declarations_win() -> None:
    document = _document()
    paths = document["paths"]
    # Derived: guards (401), a conversation id (400/403), a body (413), the rate limit (429).
    message = paths["/api/conversations/{conversation_id}/message"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "413", "429"} <= set(message)
    # Declared on the route: its own 400 (`error` body) wins over the derived id 400.
    ref = message["400"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/ErrorTextBody"
    # No guard on the health routes: only the rate limit is added.
    assert set(paths["/alive"]["get"]["responses"]) == {"200", "429"}
    # The file routes (declared in app.py's table).
    select = paths["/api/conversations/{conversation_id}/select-file"]["get"]["responses"]
    assert {"404", "415", "500"} <= set(select)


def test_adding_twice_changes_nothing() -> None:
    document = _document()
    again = add_error_responses(copy.deepcopy(document))
    assert again == document


def test_plausible_tokens() -> None:
    assert is_plausible_token("ghp_abcDEF0123456789")
    assert is_plausible_token("glpat-x_y.z")
    for bad in ("tökén", "two words", "tab\there", "new\nline", "nul\x00"):
        assert not is_plausible_token(bad), bad
