import { describe, expect, it } from "vitest";
import { socketEndpoint, socketQuery } from "./conversationSocket";

const target = { conversationId: "abc123", url: "/api/conversations/abc123", sessionApiKey: null, providers: [] };

describe("socketQuery", () => {
  it("carries the conversation id, last event id and providers", () => {
    expect(socketQuery({ ...target, providers: ["github", "gitlab"] }, 41)).toEqual({
      conversation_id: "abc123",
      latest_event_id: "41",
      providers_set: "github,gitlab",
    });
  });

  it("starts at -1 and adds the session key only when there is one", () => {
    expect(socketQuery(target, -1)).toEqual({ conversation_id: "abc123", latest_event_id: "-1", providers_set: "" });
    expect(socketQuery({ ...target, sessionApiKey: "k" }, -1).session_api_key).toBe("k");
  });
});

describe("socketEndpoint", () => {
  it("uses the page's origin and /socket.io for relative conversation urls", () => {
    expect(socketEndpoint("/api/conversations/abc", "http://localhost:3000")).toEqual({
      origin: "http://localhost:3000",
      path: "/socket.io",
    });
    expect(socketEndpoint(null, "http://localhost:3000").path).toBe("/socket.io");
  });

  it("connects to the host of an absolute url, keeping its path prefix", () => {
    expect(socketEndpoint("http://127.0.0.1:4000/runtime/x/api/conversations/abc", "http://localhost:3000")).toEqual({
      origin: "http://127.0.0.1:4000",
      path: "/runtime/x/socket.io",
    });
  });
});
