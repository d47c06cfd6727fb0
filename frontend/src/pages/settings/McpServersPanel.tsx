import { useState, type FormEvent } from "react";
import { saveSettings } from "../../api/settings";
import type { SettingsResponse } from "../../api/types";
import { useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import {
  configFromServers,
  draftFromServer,
  EMPTY_DRAFT,
  serverFromDraft,
  serverLabel,
  serversFromConfig,
  type McpDraft,
  type McpKind,
  type McpServer,
} from "../../state/mcpConfig";
import { payloadWith } from "../../state/settingsForm";
import { useTranslation } from "../../i18n/useTranslation";
import { describedByError, SettingsField } from "./SettingsField";

// Protocol names stay as they are; only stdio gets a word of explanation (translated below).
const KINDS: { id: McpKind; label: string | null }[] = [
  { id: "shttp", label: "Streamable HTTP" },
  { id: "sse", label: "SSE" },
  { id: "stdio", label: null },
];
const KIND_LABEL: Record<McpKind, string> = { shttp: "HTTP", sse: "SSE", stdio: "stdio" };

/** MCP servers stored in Settings.mcp_config; the agent of every new conversation gets their tools. */
export function McpServersPanel({ stored }: { stored: SettingsResponse | null }) {
  const { t } = useTranslation(["settings", "common"]);
  const { reload } = useSettings();
  const toast = useToast();
  const servers = serversFromConfig(stored?.mcp_config);
  // null: the form is closed; -1: adding; otherwise the index being edited.
  const [editing, setEditing] = useState<number | null>(null);
  const [draft, setDraft] = useState<McpDraft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<Partial<Record<keyof McpDraft, string>>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function store(next: McpServer[], done: string): Promise<boolean> {
    if (!stored) return false;
    setBusy(true);
    setError(null);
    try {
      await saveSettings(payloadWith(stored, { mcp_config: configFromServers(next) }));
      await reload();
      toast(done, "success");
      return true;
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
      return false;
    } finally {
      setBusy(false);
    }
  }

  function open(index: number) {
    setEditing(index);
    const server = index >= 0 ? servers[index] : undefined;
    setDraft(server ? draftFromServer(server) : EMPTY_DRAFT);
    setErrors({});
    setError(null);
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (editing === null) return;
    const others = servers.filter((_, i) => i !== editing);
    const result = serverFromDraft(draft, others, editing >= 0 ? servers[editing] : undefined);
    if (result.errors) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    const next = editing >= 0 ? servers.map((s, i) => (i === editing ? result.server : s)) : [...servers, result.server];
    const name = serverLabel(result.server);
    const done = editing >= 0 ? t("mcp.updated", { name }) : t("mcp.added", { name });
    if (await store(next, done)) setEditing(null);
  }

  const set = (key: keyof McpDraft, value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const field = (key: keyof McpDraft, label: string, props: { type?: string; placeholder?: string; multiline?: boolean } = {}) => {
    const id = `mcp-${key}`;
    const common = {
      id,
      "data-testid": id,
      value: draft[key],
      ...describedByError(id, errors[key]),
      placeholder: props.placeholder,
    };
    return (
      <SettingsField id={id} label={label} error={errors[key]}>
        {props.multiline ? (
          <textarea rows={3} {...common} onChange={(e) => set(key, e.target.value)} />
        ) : (
          <input type={props.type ?? "text"} autoComplete="off" {...common} onChange={(e) => set(key, e.target.value)} />
        )}
      </SettingsField>
    );
  };

  const editingServer = editing !== null && editing >= 0 ? servers[editing] : undefined;
  const keyKept = editingServer && editingServer.kind !== "stdio" && editingServer.apiKey;
  return (
    <section id="mcp-servers" className="card" aria-labelledby="mcp-servers-title">
      <h2 id="mcp-servers-title">{t("mcp.title")}</h2>
      <p className="hint">{t("mcp.intro")}</p>
      {!stored && <p className="muted">{t("mcp.saveFirst")}</p>}
      {stored && servers.length === 0 && <p className="muted">{t("mcp.empty")}</p>}
      <ul className="secret-list" data-testid="mcp-server-list">
        {servers.map((s, i) => (
          <li key={`${s.kind}:${serverLabel(s)}`} className="secret-row" data-testid="mcp-server-row">
            <div>
              <span className="pill">{KIND_LABEL[s.kind]}</span> <strong>{serverLabel(s)}</strong>
              {s.kind === "stdio" && (
                <span className="muted">
                  {" "}
                  {[s.command, ...s.args].join(" ")}
                </span>
              )}
            </div>
            <div className="secret-row__actions">
              <button
                type="button"
                className="button button--ghost"
                aria-label={t("mcp.editAria", { name: serverLabel(s) })}
                data-testid="edit-mcp-server"
                disabled={busy}
                onClick={() => open(i)}
              >
                {t("edit")}
              </button>
              <button
                type="button"
                className="button button--ghost"
                aria-label={t("mcp.removeAria", { name: serverLabel(s) })}
                data-testid="remove-mcp-server"
                disabled={busy}
                onClick={() => void store(servers.filter((_, j) => j !== i), t("mcp.removed", { name: serverLabel(s) }))}
              >
                {t("remove")}
              </button>
            </div>
          </li>
        ))}
      </ul>
      {stored && editing === null && (
        <div className="form-actions">
          <button type="button" className="button" data-testid="add-mcp-server" onClick={() => open(-1)}>
            {t("mcp.addButton")}
          </button>
        </div>
      )}
      {editing !== null && (
        <form className="settings-form" onSubmit={onSubmit} aria-label={editing >= 0 ? t("mcp.editFormLabel") : t("mcp.addFormLabel")} noValidate>
          <h3>{editing >= 0 ? t("mcp.editHeading") : t("mcp.addHeading")}</h3>
          <SettingsField id="mcp-kind" label={t("mcp.transport")}>
            <select id="mcp-kind" data-testid="mcp-kind" value={draft.kind} onChange={(e) => set("kind", e.target.value)}>
              {KINDS.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label ?? t("mcp.stdioKind")}
                </option>
              ))}
            </select>
          </SettingsField>
          {draft.kind === "stdio" ? (
            <>
              {field("name", t("mcp.name"), { placeholder: t("mcp.example", { example: "fetch" }) })}
              {field("command", t("mcp.command"), { placeholder: t("mcp.example", { example: "uvx" }) })}
              {field("args", t("mcp.args"), { placeholder: t("mcp.example", { example: 'mcp-server-fetch --flag "a b"' }) })}
              {field("env", t("mcp.env"), { multiline: true })}
            </>
          ) : (
            <>
              {field("url", t("mcp.url"), { type: "url", placeholder: "http://localhost:8080/mcp" })}
              {field("apiKey", t("mcp.apiKey"), {
                type: "password",
                placeholder: keyKept ? t("keepPlaceholder") : t("mcp.apiKeyPlaceholder"),
              })}
              {draft.kind === "shttp" && field("timeout", t("mcp.timeout"), { placeholder: "60" })}
            </>
          )}
          <div className="form-actions">
            <button type="submit" className="button button--primary" data-testid="save-mcp-server" disabled={busy}>
              {editing >= 0 ? t("mcp.saveServer") : t("mcp.addServer")}
            </button>
            <button type="button" className="button button--ghost" onClick={() => setEditing(null)}>
              {t("common:cancel")}
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="form-error" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
    </section>
  );
}
