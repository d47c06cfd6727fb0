import { useSettings } from "../../hooks/SettingsContext";
import { useTranslation } from "../../i18n/useTranslation";
import { GitProvidersPanel } from "./GitProvidersPanel";
import { LlmSettingsForm } from "./LlmSettingsForm";
import { McpServersPanel } from "./McpServersPanel";
import { SecretsPanel } from "./SecretsPanel";

export default function SettingsPage() {
  const { t } = useTranslation("settings");
  const { settings, loaded, error } = useSettings();
  return (
    <div className="page page--narrow settings">
      <h1>{t("title")}</h1>
      <nav aria-label={t("nav.label")} className="settings-nav">
        <a href="#llm-settings">{t("nav.llm")}</a>
        <a href="#mcp-servers">{t("nav.mcp")}</a>
        <a href="#secrets">{t("nav.secrets")}</a>
        <a href="#git-providers">{t("nav.git")}</a>
      </nav>
      {error && (
        <p className="form-error" role="alert">
          {t("loadFailed", { error: error.message })}
        </p>
      )}
      {loaded && settings === null && !error && (
        <p className="notice" data-testid="settings-first-run">
          {t("firstRun")}
        </p>
      )}
      {loaded ? <LlmSettingsForm stored={settings} /> : <p role="status">{t("loading")}</p>}
      {loaded && <McpServersPanel stored={settings} />}
      <SecretsPanel />
      {loaded && <GitProvidersPanel providersSet={settings?.provider_tokens_set ?? {}} />}
    </div>
  );
}
