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
import { applyLanguage, i18n } from "../../i18n";
import { useTranslation } from "../../i18n/useTranslation";
import { ModelField } from "./ModelField";
import { MoreSettingsFields } from "./MoreSettingsFields";
import { CheckboxField, SettingsField, StoredKeyField, TextField } from "./SettingsField";
import { useSettingsOptions } from "./useOptions";
import { localisedErrors } from "./validationText";

export function LlmSettingsForm({ stored }: { stored: SettingsResponse | null }) {
  const { t } = useTranslation(["settings", "common"]);
  const { reload } = useSettings();
  const toast = useToast();
  const options = useSettingsOptions();
  const [form, setForm] = useState<SettingsFormValues>(() => formFromSettings(stored));
  const [saving, setSaving] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const errors = validateSettingsForm(form);
  const shownErrors = submitted ? localisedErrors(errors, t) : {};
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
      // LanguageSync would switch too, but later: waiting here words the confirmation in the
      // chosen language (asked of i18n itself, as this render's `t` keeps the old one). A
      // language switch fetches only the start-up namespaces, hence the explicit load.
      await applyLanguage(form.language)
        .then(() => i18n.loadNamespaces("settings"))
        // Stored either way: a language file that fails to load only leaves the words as they were.
        .catch(() => undefined);
      toast(i18n.t("settings:llm.saved"), "success");
    } catch (reason) {
      setSaveError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setSaving(false);
    }
  }

  const agents = options.agents.length ? options.agents : [form.agent];
  return (
    <section id="llm-settings" className="card" aria-labelledby="llm-settings-title">
      <h2 id="llm-settings-title">{t("llm.title")}</h2>
      <form className="settings-form" onSubmit={onSubmit} noValidate>
        <ModelField
          value={form.llmModel}
          models={options.models}
          error={shownErrors.llmModel}
          onChange={(v) => set("llmModel", v)}
        />

        <StoredKeyField which="llm" isSet={keySet} form={form} set={set} />

        <TextField
          id="settings-base-url"
          label={t("llm.baseUrl")}
          type="url"
          placeholder="https://api.example.com/v1"
          value={form.llmBaseUrl}
          error={shownErrors.llmBaseUrl}
          onValue={(v) => set("llmBaseUrl", v)}
        />

        <div className="field-row">
          <SettingsField id="settings-agent" label={t("llm.agent")}>
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
          </SettingsField>
          <TextField
            id="settings-max-iterations"
            label={t("llm.maxIterations")}
            inputMode="numeric"
            placeholder={t("llm.serverDefault")}
            value={form.maxIterations}
            error={shownErrors.maxIterations}
            onValue={(v) => set("maxIterations", v)}
          />
        </div>

        <CheckboxField
          testId="settings-confirmation-mode"
          checked={form.confirmationMode}
          onChecked={(v) => set("confirmationMode", v)}
        >
          {t("llm.confirmationMode")}
        </CheckboxField>

        <SettingsField id="settings-security-analyzer" label={t("llm.securityAnalyzer")}>
          <select
            id="settings-security-analyzer"
            data-testid="settings-security-analyzer"
            value={form.securityAnalyzer}
            onChange={(e) => set("securityAnalyzer", e.target.value)}
          >
            <option value="">{t("llm.noAnalyzer")}</option>
            {options.analyzers.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
            {form.securityAnalyzer && !options.analyzers.includes(form.securityAnalyzer) && (
              <option value={form.securityAnalyzer}>{form.securityAnalyzer}</option>
            )}
          </select>
        </SettingsField>

        <CheckboxField
          testId="settings-condenser"
          checked={form.enableDefaultCondenser}
          onChecked={(v) => set("enableDefaultCondenser", v)}
        >
          {t("llm.condenser")}
        </CheckboxField>

        <MoreSettingsFields
          form={form}
          errors={shownErrors}
          searchKeySet={stored?.search_api_key_set ?? false}
          set={set}
        />

        <div className="form-actions">
          <button type="submit" className="button button--primary" data-testid="settings-save" disabled={saving}>
            {saving ? t("common:saving") : t("llm.save")}
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
