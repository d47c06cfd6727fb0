import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConversationInfo } from "../../api/types";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import { HomePage } from "./HomePage";

afterEach(() => vi.unstubAllGlobals());

const CONVERSATION: ConversationInfo = {
  conversation_id: "5f3c0e0123456789abcdef0123456789",
  title: "Fix the failing test",
  last_updated_at: "2025-10-10T10:02:11.512Z",
  status: "RUNNING",
  runtime_status: "STATUS$READY",
  selected_repository: null,
  selected_branch: null,
  git_provider: null,
  trigger: "gui",
  num_connections: 1,
  url: "/api/conversations/5f3c0e0123456789abcdef0123456789",
  session_api_key: null,
  created_at: "2025-10-10T10:00:00.000001Z",
  pr_number: [],
};

const SETTINGS = { ...DEFAULT_SETTINGS, llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: {} };

describe("HomePage", () => {
  it("points a first-run user to settings", async () => {
    mockFetch({
      "GET /api/settings": { status: 404, body: { error: "Settings not found" } },
      "GET /api/conversations": { body: { results: [], next_page_id: null } },
    });
    renderWithApp(<HomePage />);
    expect(await screen.findByTestId("setup-banner")).toBeTruthy();
    expect(screen.getByTestId("setup-open-settings").getAttribute("href")).toBe("/settings");
    expect((screen.getByTestId("start-conversation") as HTMLButtonElement).disabled).toBe(true);
  });

  it("lists conversations with title and status", async () => {
    mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [CONVERSATION], next_page_id: null } },
    });
    renderWithApp(<HomePage />);
    const card = await screen.findByTestId("conversation-card");
    expect(card.textContent).toContain("Fix the failing test");
    expect(screen.getByTestId("conversation-status").dataset.status).toBe("RUNNING");
    expect(screen.getByTestId("conversation-status").textContent).toBe("Running");
    expect(screen.getByTestId("conversation-title").getAttribute("href")).toBe(`/conversations/${CONVERSATION.conversation_id}`);
  });

  it("stops and starts a conversation from its card, following the start until it runs", async () => {
    const id = CONVERSATION.conversation_id;
    let looks = 0;
    const { calls } = mockFetch({
      "GET /api/settings": { body: { ...SETTINGS, provider_tokens_set: { github: "github.com" } } },
      "GET /api/conversations": { body: { results: [CONVERSATION], next_page_id: null } },
      [`POST /api/conversations/${id}/stop`]: {
        body: { status: "ok", conversation_id: id, message: "Conversation stopped successfully", conversation_status: "RUNNING" },
      },
      [`POST /api/conversations/${id}/start`]: {
        body: { status: "ok", conversation_id: id, message: null, conversation_status: "STARTING" },
      },
      // Still starting at the first look, running at the next.
      [`GET /api/conversations/${id}`]: () => ({
        body: { ...CONVERSATION, status: looks++ === 0 ? "STARTING" : "RUNNING" },
      }),
    });
    renderWithApp(<HomePage />);
    await screen.findByTestId("conversation-card");
    fireEvent.click(screen.getByTestId("conversation-stop"));
    await waitFor(() => expect(screen.getByTestId("conversation-status").dataset.status).toBe("STOPPED"));
    expect(calls.filter((c) => c.method === "POST" && c.url.endsWith("/stop"))).toHaveLength(1);
    expect(screen.queryByTestId("conversation-stop")).toBeNull();

    fireEvent.click(screen.getByTestId("conversation-start"));
    await waitFor(() => expect(screen.getByTestId("conversation-status").dataset.status).toBe("STARTING"));
    expect(calls.find((c) => c.url.endsWith("/start"))?.body).toEqual({ providers_set: ["github"] });
    await waitFor(() => expect(screen.getByTestId("conversation-status").dataset.status).toBe("RUNNING"), { timeout: 5000 });
    expect(looks).toBe(2);
    expect(screen.getByTestId("conversation-stop").textContent).toBe("Stop");
  });

  it("starts a conversation with the task as initial_user_msg", async () => {
    const { calls } = mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [], next_page_id: null } },
      "POST /api/conversations": {
        body: { status: "ok", conversation_id: "abc", message: null, conversation_status: "STARTING" },
      },
    });
    renderWithApp(<HomePage />);
    await waitFor(() => expect((screen.getByTestId("start-conversation") as HTMLButtonElement).disabled).toBe(false));
    fireEvent.change(screen.getByTestId("new-conversation-task"), { target: { value: "Write hello.py" } });
    fireEvent.keyDown(screen.getByTestId("new-conversation-task"), { key: "Enter" });
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ initial_user_msg: "Write hello.py" });
  });

  it("renames and deletes a conversation", async () => {
    const id = CONVERSATION.conversation_id;
    const { calls } = mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [CONVERSATION], next_page_id: null } },
      [`PATCH /api/conversations/${id}`]: { body: true },
      [`DELETE /api/conversations/${id}`]: { body: true },
    });
    renderWithApp(<HomePage />);
    fireEvent.click(await screen.findByTestId("rename-conversation"));
    fireEvent.change(screen.getByTestId("rename-input"), { target: { value: "Renamed" } });
    fireEvent.click(screen.getByTestId("rename-save"));
    expect((await screen.findByTestId("conversation-title")).textContent).toBe("Renamed");
    expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ title: "Renamed" });

    fireEvent.click(screen.getByTestId("delete-conversation"));
    fireEvent.click(screen.getByTestId("confirm-delete"));
    await waitFor(() => expect(screen.queryByTestId("conversation-card")).toBeNull());
  });
});
