"""Compatibility path: the reference's ``openhands.server.settings`` models.

Each name is the project's model of the same JSON (``openhands/server/models/settings.py``):

| reference | project model |
| --- | --- |
| ``POSTProviderModel`` | ``ProviderTokensRequest`` (body of POST /api/add-git-providers) |
| ``POSTCustomSecrets`` | ``CustomSecretsUpdate`` |
| ``GETSettingsModel`` | ``SettingsResponse`` (GET /api/settings) |
| ``CustomSecretWithoutValueModel`` | ``CustomSecretName`` |
| ``CustomSecretModel`` | ``CustomSecretCreate`` (body of POST /api/secrets) |
| ``GETCustomSecrets`` | ``CustomSecretNames`` (GET /api/secrets) |
"""

from openhands.server.models.settings import (
    CustomSecretCreate,
    CustomSecretName,
    CustomSecretNames,
    CustomSecretsUpdate,
    ProviderTokensRequest,
    SettingsResponse,
)

POSTProviderModel = ProviderTokensRequest
POSTCustomSecrets = CustomSecretsUpdate
GETSettingsModel = SettingsResponse
CustomSecretWithoutValueModel = CustomSecretName
CustomSecretModel = CustomSecretCreate
GETCustomSecrets = CustomSecretNames

__all__ = [
    "CustomSecretModel",
    "CustomSecretWithoutValueModel",
    "GETCustomSecrets",
    "GETSettingsModel",
    "POSTCustomSecrets",
    "POSTProviderModel",
]
