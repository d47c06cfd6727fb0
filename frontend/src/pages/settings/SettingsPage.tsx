import { useSettings } from "../../hooks/SettingsContext";
import { GitProvidersPanel } from "./GitProvidersPanel";
import { LlmSettingsForm } from "./LlmSettingsForm";
import { McpServersPanel } from "./McpServersPanel";
import { SecretsPanel } from "./SecretsPanel";

export default function SettingsPage() {
  const { settings, loaded, error } = useSettings();
  return (
    <div className="page page--narrow settings">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" className="settings-nav">
        <a href="#llm-settings">Model &amp; agent</a>
        <a href="#mcp-servers">MCP servers</a>
        <a href="#secrets">Secrets</a>
        <a href="#git-providers">Git providers</a>
      </nav>
      {error && (
        <p className="form-error" role="alert">
          Could not load settings: {error.message}
        </p>
      )}
      {loaded && settings === null && !error && (
        <p className="notice" data-testid="settings-first-run">
          Nothing is configured yet. Pick a model and enter its API key to start using the agent.
        </p>
      )}
      {loaded ? <LlmSettingsForm stored={settings} /> : <p role="status">Loading settings…</p>}
      {loaded && <McpServersPanel stored={settings} />}
      <SecretsPanel />
      {loaded && <GitProvidersPanel providersSet={settings?.provider_tokens_set ?? {}} />}
    </div>
  );
}
