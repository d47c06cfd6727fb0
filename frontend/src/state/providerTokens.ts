/** Git provider tokens form -> POST /api/add-git-providers body. */
import type { ProviderToken, ProviderType, SettingsResponse } from "../api/types";

export type ProviderDrafts = Partial<Record<ProviderType, { token: string; host: string }>>;

/**
 * The stored map is replaced by the request's map, and an empty token keeps
 * the stored one (server-api.md §6.5), so every connected provider is sent
 * back with token "" unless the user typed a new one.
 */
export function buildProviderTokens(
  providersSet: SettingsResponse["provider_tokens_set"],
  drafts: ProviderDrafts,
): Partial<Record<ProviderType, ProviderToken>> {
  const tokens: Partial<Record<ProviderType, ProviderToken>> = {};
  for (const [provider, host] of Object.entries(providersSet) as [ProviderType, string | null][]) {
    tokens[provider] = { token: "", host: host ?? null };
  }
  for (const [provider, draft] of Object.entries(drafts) as [ProviderType, { token: string; host: string }][]) {
    const token = draft.token.trim();
    const host = draft.host.trim() || null;
    if (token) tokens[provider] = { token, host };
    else if (tokens[provider]) tokens[provider] = { token: "", host: host ?? tokens[provider]?.host ?? null };
  }
  return tokens;
}
