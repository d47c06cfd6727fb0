import { useState, type FormEvent } from "react";
import { addGitProviders, unsetProviderTokens } from "../../api/settings";
import type { ProviderType, SettingsResponse } from "../../api/types";
import { useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import { useTranslation } from "../../i18n/useTranslation";
import { buildProviderTokens, type ProviderDrafts } from "../../state/providerTokens";
import { TextField } from "./SettingsField";

// Product names and host names: the same in every language.
const PROVIDERS: { id: ProviderType; label: string; hostHint: string }[] = [
  { id: "github", label: "GitHub", hostHint: "github.com" },
  { id: "gitlab", label: "GitLab", hostHint: "gitlab.com" },
  { id: "bitbucket", label: "Bitbucket", hostHint: "bitbucket.org" },
];

export function GitProvidersPanel({ providersSet }: { providersSet: SettingsResponse["provider_tokens_set"] }) {
  const { t } = useTranslation("settings");
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
    void run(() => addGitProviders({ provider_tokens }), t("git.saved"));
  }

  return (
    <section id="git-providers" className="card" aria-labelledby="git-providers-title">
      <h2 id="git-providers-title">{t("git.title")}</h2>
      <p className="hint">{t("git.intro")}</p>
      <form onSubmit={onSave} className="settings-form">
        {PROVIDERS.map((p) => {
          const isSet = p.id in providersSet;
          return (
            <fieldset key={p.id} className="provider-row" data-testid={`provider-${p.id}`}>
              <legend>
                {p.label}{" "}
                <span className={isSet ? "pill pill--running" : "pill"}>{isSet ? t("git.connected") : t("git.notConnected")}</span>
              </legend>
              <div className="field-row">
                <TextField
                  id={`token-${p.id}`}
                  testId={`provider-token-${p.id}`}
                  label={t("git.token")}
                  type="password"
                  autoComplete="off"
                  placeholder={isSet ? t("keepPlaceholder") : t("git.tokenPlaceholder")}
                  value={drafts[p.id]?.token ?? ""}
                  onValue={(v) => setDraft(p.id, "token", v)}
                />
                <TextField
                  id={`host-${p.id}`}
                  testId={`provider-host-${p.id}`}
                  label={t("git.host")}
                  placeholder={providersSet[p.id] ?? p.hostHint}
                  value={drafts[p.id]?.host ?? ""}
                  onValue={(v) => setDraft(p.id, "host", v)}
                />
              </div>
            </fieldset>
          );
        })}
        <div className="form-actions">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="save-git-providers">
            {t("git.save")}
          </button>
          {connected && (
            <button
              type="button"
              className="button button--danger"
              disabled={busy}
              data-testid="disconnect-git-providers"
              onClick={() => void run(unsetProviderTokens, t("git.removed"))}
            >
              {t("git.disconnect")}
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
