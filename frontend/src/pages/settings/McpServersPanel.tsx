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

const KINDS: { id: McpKind; label: string }[] = [
  { id: "shttp", label: "Streamable HTTP" },
  { id: "sse", label: "SSE" },
  { id: "stdio", label: "stdio (a command)" },
];
const KIND_LABEL: Record<McpKind, string> = { shttp: "HTTP", sse: "SSE", stdio: "stdio" };

/** MCP servers stored in Settings.mcp_config; the agent of every new conversation gets their tools. */
export function McpServersPanel({ stored }: { stored: SettingsResponse | null }) {
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
    const verb = editing >= 0 ? "updated" : "added";
    if (await store(next, `MCP server ${serverLabel(result.server)} ${verb}`)) setEditing(null);
  }

  const set = (key: keyof McpDraft, value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const field = (key: keyof McpDraft, label: string, props: { type?: string; placeholder?: string; multiline?: boolean } = {}) => {
    const id = `mcp-${key}`;
    const errorId = `${id}-error`;
    const common = {
      id,
      "data-testid": id,
      value: draft[key],
      "aria-invalid": errors[key] ? true : undefined,
      "aria-describedby": errors[key] ? errorId : undefined,
      placeholder: props.placeholder,
    };
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {props.multiline ? (
          <textarea rows={3} {...common} onChange={(e) => set(key, e.target.value)} />
        ) : (
          <input type={props.type ?? "text"} autoComplete="off" {...common} onChange={(e) => set(key, e.target.value)} />
        )}
        {errors[key] && (
          <p id={errorId} className="field-error">
            {errors[key]}
          </p>
        )}
      </div>
    );
  };

  const editingServer = editing !== null && editing >= 0 ? servers[editing] : undefined;
  const keyKept = editingServer && editingServer.kind !== "stdio" && editingServer.apiKey;
  return (
    <section id="mcp-servers" className="card" aria-labelledby="mcp-servers-title">
      <h2 id="mcp-servers-title">MCP servers</h2>
      <p className="hint">The agent of each new conversation can call the tools of these Model Context Protocol servers.</p>
      {!stored && <p className="muted">Save the model settings first; MCP servers are stored with them.</p>}
      {stored && servers.length === 0 && <p className="muted">No MCP servers yet.</p>}
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
                aria-label={`Edit MCP server ${serverLabel(s)}`}
                data-testid="edit-mcp-server"
                disabled={busy}
                onClick={() => open(i)}
              >
                Edit
              </button>
              <button
                type="button"
                className="button button--ghost"
                aria-label={`Remove MCP server ${serverLabel(s)}`}
                data-testid="remove-mcp-server"
                disabled={busy}
                onClick={() => void store(servers.filter((_, j) => j !== i), `MCP server ${serverLabel(s)} removed`)}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
      {stored && editing === null && (
        <div className="form-actions">
          <button type="button" className="button" data-testid="add-mcp-server" onClick={() => open(-1)}>
            Add a server
          </button>
        </div>
      )}
      {editing !== null && (
        <form className="settings-form" onSubmit={onSubmit} aria-label={editing >= 0 ? "Edit MCP server" : "Add MCP server"} noValidate>
          <h3>{editing >= 0 ? "Edit server" : "Add a server"}</h3>
          <div className="field">
            <label htmlFor="mcp-kind">Transport</label>
            <select id="mcp-kind" data-testid="mcp-kind" value={draft.kind} onChange={(e) => set("kind", e.target.value)}>
              {KINDS.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label}
                </option>
              ))}
            </select>
          </div>
          {draft.kind === "stdio" ? (
            <>
              {field("name", "Name", { placeholder: "e.g. fetch" })}
              {field("command", "Command", { placeholder: "e.g. uvx" })}
              {field("args", "Arguments", { placeholder: 'e.g. mcp-server-fetch --flag "a b"' })}
              {field("env", "Environment (one KEY=value per line)", { multiline: true })}
            </>
          ) : (
            <>
              {field("url", "URL", { type: "url", placeholder: "http://localhost:8080/mcp" })}
              {field("apiKey", "API key (optional)", {
                type: "password",
                placeholder: keyKept ? "Set — leave blank to keep it" : "Sent as a bearer token",
              })}
              {draft.kind === "shttp" && field("timeout", "Timeout in seconds (optional)", { placeholder: "60" })}
            </>
          )}
          <div className="form-actions">
            <button type="submit" className="button button--primary" data-testid="save-mcp-server" disabled={busy}>
              {editing >= 0 ? "Save server" : "Add server"}
            </button>
            <button type="button" className="button button--ghost" onClick={() => setEditing(null)}>
              Cancel
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
