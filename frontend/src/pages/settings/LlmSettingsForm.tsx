import { useState, type FormEvent } from "react";
import { saveSettings } from "../../api/settings";
import type { SettingsResponse } from "../../api/types";
import { useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import {
  buildSettingsPayload,
  formFromSettings,
  validateSettingsForm,
  type SettingsFormValues,
} from "../../state/settingsForm";
import { ModelField } from "./ModelField";
import { MoreSettingsFields } from "./MoreSettingsFields";
import { useSettingsOptions } from "./useOptions";

export function LlmSettingsForm({ stored }: { stored: SettingsResponse | null }) {
  const { reload } = useSettings();
  const toast = useToast();
  const options = useSettingsOptions();
  const [form, setForm] = useState<SettingsFormValues>(() => formFromSettings(stored));
  const [saving, setSaving] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const errors = validateSettingsForm(form);
  const shownErrors = submitted ? errors : {};
  const keySet = stored?.llm_api_key_set ?? false;

  function set<K extends keyof SettingsFormValues>(key: K, value: SettingsFormValues[K]) {
    setForm((f) => ({ ...f, [key]: value }));
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (Object.keys(errors).length > 0) return;
    setSaving(true);
    setSaveError(null);
    try {
      await saveSettings(buildSettingsPayload(stored, form));
      setForm((f) => ({ ...f, llmApiKey: "", clearApiKey: false, searchApiKey: "", clearSearchApiKey: false }));
      setSubmitted(false);
      await reload();
      toast("Settings saved", "success");
    } catch (reason) {
      setSaveError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setSaving(false);
    }
  }

  const agents = options.agents.length ? options.agents : [form.agent];
  return (
    <section id="llm-settings" className="card" aria-labelledby="llm-settings-title">
      <h2 id="llm-settings-title">Model &amp; agent</h2>
      <form className="settings-form" onSubmit={onSubmit} noValidate>
        <ModelField
          value={form.llmModel}
          models={options.models}
          error={shownErrors.llmModel}
          onChange={(v) => set("llmModel", v)}
        />

        <div className="field">
          <label htmlFor="settings-api-key">API key</label>
          <input
            id="settings-api-key"
            data-testid="settings-api-key"
            type="password"
            autoComplete="off"
            placeholder={keySet ? "Set — leave blank to keep it" : "Enter the provider's API key"}
            value={form.llmApiKey}
            disabled={form.clearApiKey}
            onChange={(e) => set("llmApiKey", e.target.value)}
          />
          <p className="hint" data-testid="settings-api-key-status">
            {keySet ? "A key is set." : "No key is set."}
          </p>
          {keySet && (
            <label className="checkbox">
              <input
                type="checkbox"
                data-testid="settings-clear-api-key"
                checked={form.clearApiKey}
                onChange={(e) => set("clearApiKey", e.target.checked)}
              />
              Remove the stored key
            </label>
          )}
        </div>

        <div className="field">
          <label htmlFor="settings-base-url">Base URL (optional)</label>
          <input
            id="settings-base-url"
            data-testid="settings-base-url"
            type="url"
            placeholder="https://api.example.com/v1"
            value={form.llmBaseUrl}
            aria-invalid={shownErrors.llmBaseUrl ? true : undefined}
            aria-describedby={shownErrors.llmBaseUrl ? "settings-base-url-error" : undefined}
            onChange={(e) => set("llmBaseUrl", e.target.value)}
          />
          {shownErrors.llmBaseUrl && (
            <p id="settings-base-url-error" className="field-error">
              {shownErrors.llmBaseUrl}
            </p>
          )}
        </div>

        <div className="field-row">
          <div className="field">
            <label htmlFor="settings-agent">Agent</label>
            <select
              id="settings-agent"
              data-testid="settings-agent"
              value={form.agent}
              onChange={(e) => set("agent", e.target.value)}
            >
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="settings-max-iterations">Max iterations</label>
            <input
              id="settings-max-iterations"
              data-testid="settings-max-iterations"
              inputMode="numeric"
              placeholder="Server default"
              value={form.maxIterations}
              aria-invalid={shownErrors.maxIterations ? true : undefined}
              aria-describedby={shownErrors.maxIterations ? "settings-max-iterations-error" : undefined}
              onChange={(e) => set("maxIterations", e.target.value)}
            />
            {shownErrors.maxIterations && (
              <p id="settings-max-iterations-error" className="field-error">
                {shownErrors.maxIterations}
              </p>
            )}
          </div>
        </div>

        <label className="checkbox">
          <input
            type="checkbox"
            data-testid="settings-confirmation-mode"
            checked={form.confirmationMode}
            onChange={(e) => set("confirmationMode", e.target.checked)}
          />
          Confirmation mode — ask me before the agent runs actions
        </label>

        <div className="field">
          <label htmlFor="settings-security-analyzer">Security analyzer</label>
          <select
            id="settings-security-analyzer"
            data-testid="settings-security-analyzer"
            value={form.securityAnalyzer}
            onChange={(e) => set("securityAnalyzer", e.target.value)}
          >
            <option value="">None</option>
            {options.analyzers.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
            {form.securityAnalyzer && !options.analyzers.includes(form.securityAnalyzer) && (
              <option value={form.securityAnalyzer}>{form.securityAnalyzer}</option>
            )}
          </select>
        </div>

        <label className="checkbox">
          <input
            type="checkbox"
            data-testid="settings-condenser"
            checked={form.enableDefaultCondenser}
            onChange={(e) => set("enableDefaultCondenser", e.target.checked)}
          />
          Condense long histories (memory condenser)
        </label>

        <MoreSettingsFields
          form={form}
          errors={shownErrors}
          searchKeySet={stored?.search_api_key_set ?? false}
          set={set}
        />

        <div className="form-actions">
          <button type="submit" className="button button--primary" data-testid="settings-save" disabled={saving}>
            {saving ? "Saving…" : "Save settings"}
          </button>
        </div>
        {saveError && (
          <p className="form-error" role="alert" data-testid="settings-error">
            {saveError}
          </p>
        )}
      </form>
    </section>
  );
}
