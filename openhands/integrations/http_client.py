"""The HTTP plumbing the provider services share: one request helper that turns the
providers' failures into the errors of ``service_types``, in one place."""

from __future__ import annotations

import os
from abc import abstractmethod
from typing import Any

from pydantic import SecretStr

from openhands.integrations.service_types import (
    AuthenticationError,
    RateLimitError,
    RequestMethod,
    ResourceNotFoundError,
    UnknownException,
)

DEFAULT_TIMEOUT_SECONDS = 15.0


def api_base_url(
    base_domain: str | None,
    env_var: str,
    default_url: str,
    default_domains: tuple[str, ...],
    api_path: str,
) -> str:
    """The REST root a service talks to.

    A custom ``base_domain`` (a self-hosted provider) gives ``https://<domain><api_path>``;
    a domain written with a scheme (``http://127.0.0.1:8000``) keeps it, which is also how
    tests aim a service at a stand-in server. Otherwise the environment variable
    ``env_var`` wins over the public API's ``default_url``.
    """
    domain = (base_domain or "").strip().rstrip("/")
    if domain and domain not in default_domains:
        root = domain if domain.startswith(("http://", "https://")) else f"https://{domain}"
        return f"{root}{api_path}"
    return (os.environ.get(env_var) or default_url).rstrip("/")


class HTTPClient:
    """Mixin: ``_make_request`` against ``self.BASE_URL`` with ``_get_headers()``."""

    BASE_URL: str
    token: SecretStr | None
    provider_name: str = "provider"

    @abstractmethod
    async def _get_headers(self) -> dict[str, str]: ...

    async def _make_request(
        self,
        url: str,
        params: dict[str, Any] | None = None,
        method: RequestMethod = RequestMethod.GET,
    ) -> tuple[Any, dict[str, str]]:
        """The decoded body (JSON, else text) and the response headers (lower-case names).

        401 → ``AuthenticationError``, 404 → ``ResourceNotFoundError``, 429 →
        ``RateLimitError``, any other failure → ``UnknownException``.
        """
        import httpx  # not needed until a provider is called

        headers = await self._get_headers()
        try:
            async with httpx.AsyncClient(timeout=DEFAULT_TIMEOUT_SECONDS) as client:
                if method is RequestMethod.POST:
                    response = await client.post(url, json=params, headers=headers)
                else:
                    response = await client.get(url, params=params, headers=headers)
        except httpx.HTTPError as error:
            raise UnknownException(f"Could not reach {self.provider_name}: {error}") from error
        status = response.status_code
        if status == 401:
            raise AuthenticationError(f"Invalid {self.provider_name} token")
        if status == 404:
            raise ResourceNotFoundError(f"{self.provider_name} has no {url}")
        if status == 429:
            raise RateLimitError(f"{self.provider_name} API rate limit exceeded")
        if status >= 400:
            raise UnknownException(f"{self.provider_name} answered {status} for {url}")
        response_headers = {key.lower(): value for key, value in response.headers.items()}
        if "json" in response_headers.get("content-type", ""):
            try:
                return response.json(), response_headers
            except ValueError as error:
                raise UnknownException(f"{self.provider_name} sent invalid JSON") from error
        return response.text, response_headers

    def _token_value(self) -> str:
        return self.token.get_secret_value() if self.token else ""
