import { describe, expect, it } from "vitest";
import type { McpConfig } from "../api/types";
import {
  configFromServers,
  draftFromServer,
  EMPTY_DRAFT,
  serverFromDraft,
  serversFromConfig,
  splitArgs,
  type McpServer,
} from "./mcpConfig";

const CONFIG: McpConfig = {
  sse_servers: ["http://127.0.0.1:7000/sse", { url: "https://mcp.example.com/sse", api_key: "k1" }],
  shttp_servers: [{ url: "http://127.0.0.1:7001/mcp", timeout: 30 }],
  stdio_servers: [{ name: "fetch", command: "uvx", args: ["mcp-server-fetch"], env: { A: "1" } }],
};

describe("mcp_config rows", () => {
  it("reads every transport, bare URLs included, and writes the spec's shapes back", () => {
    const servers = serversFromConfig(CONFIG);
    expect(servers.map((s) => s.kind)).toEqual(["sse", "sse", "shttp", "stdio"]);
    expect(configFromServers(servers)).toEqual({
      sse_servers: [{ url: "http://127.0.0.1:7000/sse" }, { url: "https://mcp.example.com/sse", api_key: "k1" }],
      shttp_servers: [{ url: "http://127.0.0.1:7001/mcp", timeout: 30 }],
      stdio_servers: [{ name: "fetch", command: "uvx", args: ["mcp-server-fetch"], env: { A: "1" } }],
    });
    expect(serversFromConfig(null)).toEqual([]);
  });
});

describe("serverFromDraft", () => {
  it("builds a stdio server from shell-like arguments and KEY=value lines", () => {
    const result = serverFromDraft(
      { ...EMPTY_DRAFT, kind: "stdio", name: "tools", command: "python", args: '-m srv --title "two words"', env: "A=1\nB=x=y" },
      [],
    );
    expect(result.server).toEqual({
      kind: "stdio",
      name: "tools",
      command: "python",
      args: ["-m", "srv", "--title", "two words"],
      env: { A: "1", B: "x=y" },
    });
  });

  it("refuses what the server would refuse", () => {
    const stdio = serverFromDraft({ ...EMPTY_DRAFT, kind: "stdio", name: "bad name", command: "uvx run", args: '"open', env: "1X=2" }, []);
    expect(Object.keys(stdio.errors ?? {}).sort()).toEqual(["args", "command", "env", "name"]);
    expect(serverFromDraft({ ...EMPTY_DRAFT, kind: "sse", url: "ftp://x" }, []).errors?.url).toBeTruthy();
    expect(serverFromDraft({ ...EMPTY_DRAFT, kind: "shttp", url: "http://h/mcp", timeout: "0" }, []).errors?.timeout).toBeTruthy();
  });

  it("refuses a duplicate and keeps a stored key when the box stays blank", () => {
    const existing: McpServer = { kind: "shttp", url: "http://h/mcp", apiKey: "secret", timeout: null };
    expect(serverFromDraft({ ...EMPTY_DRAFT, kind: "shttp", url: "http://h/mcp" }, [existing]).errors?.url).toBeTruthy();
    const edited = serverFromDraft({ ...draftFromServer(existing), timeout: "90" }, [], existing);
    expect(edited.server).toEqual({ kind: "shttp", url: "http://h/mcp", apiKey: "secret", timeout: 90 });
  });

  it("round-trips a stdio server through the edit form", () => {
    const server: McpServer = { kind: "stdio", name: "s", command: "node", args: ["a b", 'q"x'], env: { K: "v" } };
    expect(serverFromDraft(draftFromServer(server), []).server).toEqual(server);
  });
});

describe("splitArgs", () => {
  it("groups quotes and reports an open one", () => {
    expect(splitArgs(`a 'b c' "d\\"e" f\\ g`)).toEqual(["a", "b c", 'd"e', "f g"]);
    expect(splitArgs("")).toEqual([]);
    expect(splitArgs('"x')).toBeNull();
  });
});
