"""HTTPClient: requests, the one retry with a fresh token, and how failures are named,
against a stand-in API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from openhands.integrations.protocols.http_client import HTTPClient, header_value
from openhands.integrations.service_types import (
    AuthenticationError,
    RateLimitError,
    RequestMethod,
    ResourceNotFoundError,
    UnknownException,
)
from tests.unit.integrations.stand_in_api import Recorded, Reply, StandInAPI, stand_in_api


class TokenManagedClient(HTTPClient):
    """A client whose token manager hands out ``fresh`` when asked for the latest token."""

    def __init__(self, token: str, fresh: str | None = None, refresh: bool = False) -> None:
        self.token = SecretStr(token)
        self.fresh = fresh
        self.refresh = refresh
        self.asked_for_latest = 0

    @property
    def provider(self) -> str:
        return "acme"

    @property
    def provider_name(self) -> str:
        return "Acme"

    async def get_latest_token(self) -> SecretStr | None:
        self.asked_for_latest += 1
        return SecretStr(self.fresh) if self.fresh else None

    async def _get_headers(self) -> dict[str, Any]:
        return {"Authorization": f"Bearer {self.token.get_secret_value()}"}


@pytest.fixture
def api() -> Iterator[StandInAPI]:
    with stand_in_api() as server:
        yield server


def _only_token(token: str) -> Any:
    def answer(request: Recorded) -> Reply:
        if request.headers.get("authorization") != f"Bearer {token}":
            return 401, {"message": "Bad credentials"}, {}
        return 200, {"ok": True}, {"Link": '<x?page=2>; rel="next"'}

    return answer


def test_an_incomplete_client_is_not_an_http_client() -> None:
    class Incomplete:
        pass

    assert not isinstance(Incomplete(), HTTPClient)
    client = TokenManagedClient("t")
    assert isinstance(client, HTTPClient)
    assert (client.external_auth_id, client.external_token_manager, client.base_domain) == (
        None,
        False,
        None,
    )
    assert client._has_token_expired(401) and not client._has_token_expired(403)


async def test_get_sends_params_and_post_sends_json(api: StandInAPI) -> None:
    api.respond("/echo", lambda r: (200, {"query": r.query}, {"X-Total": "3"}))
    api.respond("/echo", lambda r: (200, {"body": r.body}, {}), method="POST")
    client = TokenManagedClient("t")
    body, headers = await client._make_request(f"{api.url}/echo", {"page": "2"})
    assert body == {"query": {"page": ["2"]}}
    # Header names are case-insensitive, whatever case the provider sent.
    assert header_value(headers, "x-total") == "3" and header_value(headers, "X-TOTAL") == "3"
    assert header_value({"Link": "l"}, "link") == "l" and header_value({}, "link") == ""
    body, _ = await client._make_request(f"{api.url}/echo", {"a": 1}, RequestMethod.POST)
    assert body == {"body": {"a": 1}}
    api.add("/text", "plain words")
    assert (await client._make_request(f"{api.url}/text"))[0] == "plain words"


async def test_a_401_is_retried_once_with_the_latest_token_when_refreshing(
    api: StandInAPI,
) -> None:
    api.respond("/user", _only_token("fresh"))
    client = TokenManagedClient("stale", fresh="fresh", refresh=True)
    body, headers = await client._make_request(f"{api.url}/user")
    assert body == {"ok": True} and 'rel="next"' in header_value(headers, "link")
    assert [r.headers["authorization"] for r in api.requests] == ["Bearer stale", "Bearer fresh"]
    assert client.token.get_secret_value() == "fresh"

    # Without `refresh` the 401 stands, and the token manager is not asked.
    fixed = TokenManagedClient("stale", fresh="fresh")
    with pytest.raises(AuthenticationError, match=r"^Invalid acme token: Acme refused"):
        await fixed._make_request(f"{api.url}/user")
    assert fixed.asked_for_latest == 0
    # A refresh that gives nothing new fails after one retry.
    hopeless = TokenManagedClient("stale", refresh=True)
    asked = len(api.requests)
    with pytest.raises(AuthenticationError):
        await hopeless._make_request(f"{api.url}/user")
    assert len(api.requests) == asked + 2


@pytest.mark.parametrize(
    ("status", "body", "error", "message"),
    [
        (401, {"message": "Bad credentials"}, AuthenticationError,
         "Invalid acme token: Acme refused the request (401): Bad credentials"),
        (404, {"message": "Not Found"}, ResourceNotFoundError,
         "Resource not found on acme API: Acme refused the request (404): Not Found"),
        (429, "slow down", RateLimitError,
         "acme API rate limit exceeded: Acme refused the request (429): slow down"),
        (422, {"message": "Validation Failed", "errors": [{"field": "head"}]}, UnknownException,
         "Acme refused the request (422): Validation Failed [{'field': 'head'}]"),
        (503, {"error": {"message": "down"}}, UnknownException,
         "Unknown error: Acme failed to answer (503): down"),
    ],
)  # fmt: skip
async def test_failed_statuses_name_what_went_wrong(
    api: StandInAPI, status: int, body: Any, error: type[Exception], message: str
) -> None:
    api.add("/thing", body, status=status)
    with pytest.raises(error) as raised:
        await TokenManagedClient("t")._make_request(f"{api.url}/thing")
    assert str(raised.value) == message


async def test_requests_that_get_no_answer_are_unknown_exceptions(api: StandInAPI) -> None:
    with stand_in_api() as stopped:
        gone = stopped.url  # nothing listens there once the block ends
    with pytest.raises(
        UnknownException, match=r"^Could not reach Acme \(HTTP error ConnectError\)"
    ):
        await TokenManagedClient("t")._make_request(f"{gone}/user")
    # A token HTTP headers cannot carry: the message names the error, never the token.
    with pytest.raises(UnknownException) as raised:
        await TokenManagedClient("sécret")._make_request(f"{api.url}/user")
    assert str(raised.value) == "Could not send a request to Acme: UnicodeEncodeError"
    assert api.requests == []
