import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConversationInfo } from "../../api/types";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { ConversationSidebar } from "./ConversationSidebar";

afterEach(() => vi.unstubAllGlobals());

const base = (id: string, title: string, status: ConversationInfo["status"], runtime: string | null): ConversationInfo => ({
  conversation_id: id,
  title,
  last_updated_at: null,
  status,
  runtime_status: runtime,
  selected_repository: null,
  selected_branch: null,
  git_provider: null,
  trigger: "gui",
  num_connections: 0,
  url: status === "RUNNING" ? `/api/conversations/${id}` : null,
  session_api_key: null,
  created_at: "2025-10-10T10:00:00.000001Z",
  pr_number: [],
});
const A = "a".repeat(32);
const B = "b".repeat(32);
const SETTINGS = { ...DEFAULT_SETTINGS, llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: {} };

function setup(extra = {}) {
  let list = [base(A, "Fix the tests", "RUNNING", "STATUS$READY"), base(B, "Write docs", "STARTING", "STATUS$BUILDING_RUNTIME")];
  const api = mockFetch({
    "GET /api/settings": { body: SETTINGS },
    "GET /api/conversations": () => ({ body: { results: list, next_page_id: null } }),
    ...extra,
  });
  renderWithApp(<ConversationSidebar id="sidebar" open />, `/conversations/${A}`, "/conversations/:id");
  return { ...api, setList: (next: ConversationInfo[]) => (list = next) };
}

function item(id: string) {
  return screen.getAllByTestId("sidebar-conversation").find((el) => el.dataset.conversationId === id)!;
}

describe("ConversationSidebar", () => {
  it("lists conversations with their status in words and marks the open one", async () => {
    setup();
    await screen.findByText("Fix the tests");
    expect(within(item(A)).getByTestId("sidebar-conversation-status").textContent).toBe("Running");
    expect(within(item(B)).getByTestId("sidebar-conversation-status").textContent).toBe("Building the sandbox image…");
    expect(item(A).className).toContain("sidebar-item--current");
    expect(within(item(A)).getByTestId("sidebar-conversation-link").getAttribute("href")).toBe(`/conversations/${A}`);
  });

  it("re-reads the list at once when this tab changes a conversation", async () => {
    const { setList } = setup();
    await screen.findByText("Fix the tests");
    setList([base(A, "Fix the tests", "STOPPED", "STATUS$STOPPED")]);
    announceConversationsChanged();
    await waitFor(() => expect(within(item(A)).getByTestId("sidebar-conversation-status").textContent).toBe("Stopped"));
    expect(screen.queryByText("Write docs")).toBeNull();
  });

  it("renames in place, stops, opens in a new tab and deletes after a confirmation", async () => {
    const { calls } = setup({
      [`PATCH /api/conversations/${A}`]: { body: true },
      [`POST /api/conversations/${A}/stop`]: { body: { status: "ok", conversation_id: A, message: null, conversation_status: "RUNNING" } },
      [`DELETE /api/conversations/${B}`]: { body: true },
    });
    await screen.findByText("Fix the tests");

    fireEvent.click(within(item(A)).getByTestId("sidebar-item-menu"));
    const newTab = within(item(A)).getByTestId("sidebar-open-new-tab");
    expect(newTab.getAttribute("href")).toBe(`/conversations/${A}`);
    expect(newTab.getAttribute("target")).toBe("_blank");
    fireEvent.click(within(item(A)).getByTestId("sidebar-rename"));
    const input = within(item(A)).getByTestId("sidebar-rename-input");
    fireEvent.change(input, { target: { value: "Fix every test" } });
    fireEvent.submit(input);
    await waitFor(() => expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ title: "Fix every test" }));

    await waitFor(() => expect(within(item(A)).queryByTestId("sidebar-rename-input")).toBeNull());
    fireEvent.click(within(item(A)).getByTestId("sidebar-item-menu"));
    fireEvent.click(within(item(A)).getByTestId("sidebar-stop"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.url.endsWith(`/${A}/stop`))).toBe(true));

    fireEvent.click(within(item(B)).getByTestId("sidebar-item-menu"));
    expect(within(item(B)).queryByTestId("sidebar-stop")).not.toBeNull(); // starting: can be stopped
    fireEvent.click(within(item(B)).getByTestId("sidebar-delete"));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(within(item(B)).getByTestId("sidebar-confirm-delete"));
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.url.endsWith(B))).toBe(true));
  });

  it("exports the trajectory as a JSON file", async () => {
    const created: Blob[] = [];
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: (b: Blob) => (created.push(b), "blob:x"), revokeObjectURL: () => undefined }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    setup({ [`GET /api/conversations/${A}/trajectory`]: { body: { trajectory: [{ id: 0, action: "system" }] } } });
    await screen.findByText("Fix the tests");
    fireEvent.click(within(item(A)).getByTestId("sidebar-item-menu"));
    fireEvent.click(within(item(A)).getByTestId("sidebar-export"));
    await waitFor(() => expect(created).toHaveLength(1));
    // jsdom's Blob has no text(); FileReader reads it.
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(created[0]!);
    });
    expect(JSON.parse(text)).toEqual([{ id: 0, action: "system" }]);
    expect(click).toHaveBeenCalled();
    click.mockRestore();
  });
});
