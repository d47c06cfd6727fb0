import { ApiError, request } from "./http";
import type {
  AddGitProvidersRequest,
  CreateSecretRequest,
  MessageBody,
  SecretList,
  SettingsPayload,
  SettingsResponse,
  UpdateSecretRequest,
} from "./types";

/** Resolves to null when nothing is stored yet (the route answers 404). */
export async function getSettings(): Promise<SettingsResponse | null> {
  try {
    return await request<SettingsResponse>("/api/settings");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export function saveSettings(payload: SettingsPayload): Promise<MessageBody> {
  return request<MessageBody>("/api/settings", { method: "POST", json: payload });
}

export const getModels = (): Promise<string[]> => request<string[]>("/api/options/models");
export const getAgents = (): Promise<string[]> => request<string[]>("/api/options/agents");
export const getSecurityAnalyzers = (): Promise<string[]> =>
  request<string[]>("/api/options/security-analyzers");

export function listSecrets(): Promise<SecretList> {
  return request<SecretList>("/api/secrets");
}

export function createSecret(body: CreateSecretRequest): Promise<MessageBody> {
  return request<MessageBody>("/api/secrets", { method: "POST", json: body });
}

export function updateSecret(name: string, body: UpdateSecretRequest): Promise<MessageBody> {
  return request<MessageBody>(`/api/secrets/${encodeURIComponent(name)}`, { method: "PUT", json: body });
}

export function deleteSecret(name: string): Promise<MessageBody> {
  return request<MessageBody>(`/api/secrets/${encodeURIComponent(name)}`, { method: "DELETE" });
}

export function addGitProviders(body: AddGitProvidersRequest): Promise<MessageBody> {
  return request<MessageBody>("/api/add-git-providers", { method: "POST", json: body });
}

export function unsetProviderTokens(): Promise<MessageBody> {
  return request<MessageBody>("/api/unset-provider-tokens", { method: "POST" });
}
