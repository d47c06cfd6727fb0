/**
 * Groups the server's model list (GET /api/options/models, `provider/model` ids)
 * by provider for the settings picker, putting the verified providers and, within
 * a provider, its verified models first. The verified lists mirror the ones the
 * terminal settings use (openhands/cli/utils.py) so both UIs suggest the same.
 */

export const VERIFIED_PROVIDERS = ["openhands", "anthropic", "openai", "mistral"] as const;

const VERIFIED_MODELS: Record<string, readonly string[]> = {
  openhands: [
    "claude-sonnet-4-20250514",
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-20250514",
    "gpt-5-2025-08-07",
    "gpt-5-mini-2025-08-07",
    "o3",
    "o4-mini",
    "gemini-2.5-pro",
    "devstral-small-2505",
    "devstral-small-2507",
    "devstral-medium-2507",
    "kimi-k2-0711-preview",
    "qwen3-coder-480b",
  ],
  anthropic: [
    "claude-sonnet-4-20250514",
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-20250514",
    "claude-opus-4-1-20250805",
    "claude-3-7-sonnet-20250219",
    "claude-3-5-sonnet-20241022",
    "claude-3-5-haiku-20241022",
  ],
  openai: ["gpt-5-2025-08-07", "gpt-5-mini-2025-08-07", "o4-mini", "o3", "gpt-4o", "gpt-4o-mini", "gpt-4.1"],
  mistral: ["devstral-small-2505", "devstral-small-2507", "devstral-medium-2507"],
};

/** Models without a `provider/` prefix are grouped here. */
export const NO_PROVIDER = "other";

export interface ProviderModels {
  provider: string;
  verified: boolean;
  /** Model names without the provider prefix, verified ones first. */
  models: { name: string; verified: boolean }[];
}

export function splitModelId(id: string): { provider: string; name: string } {
  const slash = id.indexOf("/");
  if (slash <= 0) return { provider: NO_PROVIDER, name: id };
  return { provider: id.slice(0, slash), name: id.slice(slash + 1) };
}

export function joinModelId(provider: string, name: string): string {
  return provider === NO_PROVIDER ? name : `${provider}/${name}`;
}

function verifiedRank(list: readonly string[] | undefined, item: string): number {
  const index = list ? list.indexOf(item) : -1;
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

/** The catalogue: verified providers first (in their fixed order), then the rest by name. */
export function groupModels(ids: readonly string[]): ProviderModels[] {
  const byProvider = new Map<string, Set<string>>();
  for (const provider of VERIFIED_PROVIDERS) byProvider.set(provider, new Set());
  for (const id of ids) {
    const { provider, name } = splitModelId(id);
    if (!name) continue;
    let names = byProvider.get(provider);
    if (!names) byProvider.set(provider, (names = new Set()));
    names.add(name);
  }
  const groups: ProviderModels[] = [];
  for (const [provider, names] of byProvider) {
    const verifiedList = VERIFIED_MODELS[provider];
    // A verified model the server does not list is still offered: the id is known to work.
    for (const name of verifiedList ?? []) names.add(name);
    if (names.size === 0) continue;
    const models = [...names]
      .map((name) => ({ name, verified: verifiedRank(verifiedList, name) !== Number.MAX_SAFE_INTEGER }))
      .sort((a, b) => verifiedRank(verifiedList, a.name) - verifiedRank(verifiedList, b.name) || a.name.localeCompare(b.name));
    groups.push({ provider, verified: provider in VERIFIED_MODELS, models });
  }
  return groups.sort(
    (a, b) =>
      verifiedRank(VERIFIED_PROVIDERS, a.provider) - verifiedRank(VERIFIED_PROVIDERS, b.provider) ||
      a.provider.localeCompare(b.provider),
  );
}
