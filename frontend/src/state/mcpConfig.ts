/**
 * Settings.mcp_config <-> the rows of the MCP servers page (server-api.md §4:
 * `sse_servers` and `shttp_servers` take a URL string or `{url, api_key?}`
 * (shttp also `timeout`), `stdio_servers` take `{name, command, args, env}`).
 */
import type { McpConfig } from "../api/types";
import { i18n } from "../i18n";

export type McpKind = "sse" | "shttp" | "stdio";

export type McpServer =
  | { kind: "sse"; url: string; apiKey: string | null }
  | { kind: "shttp"; url: string; apiKey: string | null; timeout: number | null }
  | { kind: "stdio"; name: string; command: string; args: string[]; env: Record<string, string> };

/** What the add/edit form holds: every field as typed. */
export interface McpDraft {
  kind: McpKind;
  url: string;
  /** Empty keeps the key the server already has (when editing). */
  apiKey: string;
  timeout: string;
  name: string;
  command: string;
  /** Shell-like: `--port 3000 "a b"`. */
  args: string;
  /** One KEY=value per line. */
  env: string;
}

export const EMPTY_DRAFT: McpDraft = { kind: "shttp", url: "", apiKey: "", timeout: "", name: "", command: "", args: "", env: "" };

export function serversFromConfig(config: McpConfig | null | undefined): McpServer[] {
  if (!config) return [];
  const remote = (entry: string | { url: string; api_key?: string | null }) =>
    typeof entry === "string" ? { url: entry, apiKey: null } : { url: entry.url, apiKey: entry.api_key ?? null };
  return [
    ...(config.sse_servers ?? []).map((e): McpServer => ({ kind: "sse", ...remote(e) })),
    ...(config.shttp_servers ?? []).map(
      (e): McpServer => ({ kind: "shttp", ...remote(e), timeout: typeof e === "string" ? null : (e.timeout ?? null) }),
    ),
    ...(config.stdio_servers ?? []).map(
      (e): McpServer => ({ kind: "stdio", name: e.name, command: e.command, args: e.args ?? [], env: e.env ?? {} }),
    ),
  ];
}

export function configFromServers(servers: readonly McpServer[]): McpConfig {
  const config: McpConfig = { sse_servers: [], stdio_servers: [], shttp_servers: [] };
  for (const s of servers) {
    if (s.kind === "sse") config.sse_servers.push(s.apiKey ? { url: s.url, api_key: s.apiKey } : { url: s.url });
    else if (s.kind === "shttp") {
      const entry: { url: string; api_key?: string; timeout?: number } = { url: s.url };
      if (s.apiKey) entry.api_key = s.apiKey;
      if (s.timeout != null) entry.timeout = s.timeout;
      config.shttp_servers.push(entry);
    } else config.stdio_servers.push({ name: s.name, command: s.command, args: s.args, env: s.env });
  }
  return config;
}

/** How a server is named in the list and in messages. */
export function serverLabel(server: McpServer): string {
  return server.kind === "stdio" ? server.name : server.url;
}

export function draftFromServer(server: McpServer): McpDraft {
  if (server.kind === "stdio") {
    return {
      ...EMPTY_DRAFT,
      kind: "stdio",
      name: server.name,
      command: server.command,
      args: server.args.map(quoteArg).join(" "),
      env: Object.entries(server.env)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n"),
    };
  }
  return {
    ...EMPTY_DRAFT,
    kind: server.kind,
    url: server.url,
    timeout: server.kind === "shttp" && server.timeout != null ? String(server.timeout) : "",
  };
}

function quoteArg(arg: string): string {
  return /^[^\s"'\\]+$/.test(arg) ? arg : `"${arg.replace(/(["\\])/g, "\\$1")}"`;
}

/** Splits shell-like arguments (quotes group, backslash escapes); null when a quote is left open. */
export function splitArgs(text: string): string[] | null {
  const args: string[] = [];
  let current = "";
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < text.length) current += text.charAt(++i);
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (ch === "\\" && i + 1 < text.length) {
      current += text.charAt(++i);
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) return null;
  if (started) args.push(current);
  return args;
}

const NAME = /^[A-Za-z0-9_-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type DraftResult = { server: McpServer; errors?: undefined } | { server?: undefined; errors: Partial<Record<keyof McpDraft, string>> };

/**
 * Checks a draft the way the server will (mcp_config.py rules) and builds the
 * server; `previous` is the entry being edited, whose API key a blank box keeps.
 */
export function serverFromDraft(draft: McpDraft, others: readonly McpServer[], previous?: McpServer): DraftResult {
  const errors: Partial<Record<keyof McpDraft, string>> = {};
  if (draft.kind === "stdio") {
    const name = draft.name.trim();
    const command = draft.command.trim();
    if (!NAME.test(name)) errors.name = i18n.t("settings:mcp.validation.name");
    else if (others.some((s) => s.kind === "stdio" && s.name === name)) errors.name = i18n.t("settings:mcp.validation.nameTaken");
    if (!command) errors.command = i18n.t("settings:mcp.validation.command");
    else if (/\s/.test(command)) errors.command = i18n.t("settings:mcp.validation.commandArgs");
    const args = splitArgs(draft.args);
    if (args === null) errors.args = i18n.t("settings:mcp.validation.args");
    const env: Record<string, string> = {};
    for (const line of draft.env.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const at = line.indexOf("=");
      const key = at > 0 ? line.slice(0, at).trim() : "";
      if (!ENV_NAME.test(key)) {
        errors.env = i18n.t("settings:mcp.validation.env", { line });
        break;
      }
      env[key] = line.slice(at + 1);
    }
    if (Object.keys(errors).length) return { errors };
    return { server: { kind: "stdio", name, command, args: args ?? [], env } };
  }
  const url = draft.url.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !["http:", "https:", "ws:", "wss:"].includes(parsed.protocol) || !parsed.host) {
    errors.url = i18n.t("settings:mcp.validation.url");
  } else if (others.some((s) => s.kind === draft.kind && s.kind !== "stdio" && s.url === url)) {
    errors.url = i18n.t("settings:mcp.validation.urlTaken");
  }
  const keptKey = previous && previous.kind !== "stdio" ? previous.apiKey : null;
  const apiKey = draft.apiKey.trim() || keptKey;
  if (draft.kind === "sse") return Object.keys(errors).length ? { errors } : { server: { kind: "sse", url, apiKey } };
  const timeoutText = draft.timeout.trim();
  const timeout = timeoutText ? Number(timeoutText) : null;
  if (timeoutText && !(/^\d+$/.test(timeoutText) && timeout !== null && timeout > 0 && timeout <= 3600)) {
    errors.timeout = i18n.t("settings:mcp.validation.timeout");
  }
  if (Object.keys(errors).length) return { errors };
  return { server: { kind: "shttp", url, apiKey, timeout } };
}
