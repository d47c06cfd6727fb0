import { useState, type FormEvent } from "react";
import { addGitProviders, unsetProviderTokens } from "../../api/settings";
import type { ProviderType, SettingsResponse } from "../../api/types";
import { useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import { buildProviderTokens, type ProviderDrafts } from "../../state/providerTokens";

const PROVIDERS: { id: ProviderType; label: string; hostHint: string }[] = [
  { id: "github", label: "GitHub", hostHint: "github.com" },
  { id: "gitlab", label: "GitLab", hostHint: "gitlab.com" },
  { id: "bitbucket", label: "Bitbucket", hostHint: "bitbucket.org" },
];

export function GitProvidersPanel({ providersSet }: { providersSet: SettingsResponse["provider_tokens_set"] }) {
  const { reload } = useSettings();
  const toast = useToast();
  const [drafts, setDrafts] = useState<ProviderDrafts>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connected = Object.keys(providersSet).length > 0;

  function setDraft(provider: ProviderType, key: "token" | "host", value: string) {
    setDrafts((d) => ({ ...d, [provider]: { token: "", host: "", ...d[provider], [key]: value } }));
  }

  async function run(action: () => Promise<unknown>, done: string) {
    setBusy(true);
    setError(null);
    try {
      await action();
      setDrafts({});
      await reload();
      toast(done, "success");
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setBusy(false);
    }
  }

  function onSave(event: FormEvent) {
    event.preventDefault();
    const provider_tokens = buildProviderTokens(providersSet, drafts);
    void run(() => addGitProviders({ provider_tokens }), "Git providers saved");
  }

  return (
    <section id="git-providers" className="card" aria-labelledby="git-providers-title">
      <h2 id="git-providers-title">Git providers</h2>
      <p className="hint">With a token the agent can clone your repositories and open pull requests.</p>
      <form onSubmit={onSave} className="settings-form">
        {PROVIDERS.map((p) => {
          const isSet = p.id in providersSet;
          return (
            <fieldset key={p.id} className="provider-row" data-testid={`provider-${p.id}`}>
              <legend>
                {p.label}{" "}
                <span className={isSet ? "pill pill--running" : "pill"}>{isSet ? "connected" : "not connected"}</span>
              </legend>
              <div className="field-row">
                <div className="field">
                  <label htmlFor={`token-${p.id}`}>Token</label>
                  <input
                    id={`token-${p.id}`}
                    data-testid={`provider-token-${p.id}`}
                    type="password"
                    autoComplete="off"
                    placeholder={isSet ? "Set — leave blank to keep it" : "Personal access token"}
                    value={drafts[p.id]?.token ?? ""}
                    onChange={(e) => setDraft(p.id, "token", e.target.value)}
                  />
                </div>
                <div className="field">
                  <label htmlFor={`host-${p.id}`}>Host (optional)</label>
                  <input
                    id={`host-${p.id}`}
                    placeholder={providersSet[p.id] ?? p.hostHint}
                    value={drafts[p.id]?.host ?? ""}
                    onChange={(e) => setDraft(p.id, "host", e.target.value)}
                  />
                </div>
              </div>
            </fieldset>
          );
        })}
        <div className="form-actions">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="save-git-providers">
            Save tokens
          </button>
          {connected && (
            <button
              type="button"
              className="button button--danger"
              disabled={busy}
              data-testid="disconnect-git-providers"
              onClick={() => void run(unsetProviderTokens, "Git provider tokens removed")}
            >
              Disconnect all
            </button>
          )}
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}
