import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConversationInfo, UserAction } from "../../api/types";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import { RepositoryBar } from "./RepositoryBar";

afterEach(() => vi.unstubAllGlobals());

const CONVERSATION: ConversationInfo = {
  conversation_id: "c1",
  title: "t",
  last_updated_at: null,
  status: "RUNNING",
  runtime_status: null,
  selected_repository: "group/sub/project",
  selected_branch: "feature/x",
  git_provider: "gitlab",
  trigger: "gui",
  num_connections: 1,
  url: null,
  session_api_key: null,
  created_at: "2025-10-10T10:00:00Z",
  pr_number: [],
};

function settings(hosts: Record<string, string | null>) {
  return { "GET /api/settings": { body: { ...DEFAULT_SETTINGS, llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: hosts } } };
}

describe("RepositoryBar", () => {
  it("links the repository and branch at the token's host", async () => {
    mockFetch(settings({ gitlab: "git.example.org" }));
    renderWithApp(<RepositoryBar conversation={CONVERSATION} agentState="awaiting_user_input" connected onSend={() => true} />);
    await waitFor(() =>
      expect(screen.getByTestId("repository-link").getAttribute("href")).toBe("https://git.example.org/group/sub/project"),
    );
    expect(screen.getByTestId("branch-link").getAttribute("href")).toBe(
      "https://git.example.org/group/sub/project/-/tree/feature/x",
    );
    expect(screen.getByTestId("git-create-pr").textContent).toBe("Create MR");
  });

  it("sends the agent a message for Pull, Push and Create-PR", () => {
    mockFetch(settings({}));
    const sent: UserAction[] = [];
    renderWithApp(
      <RepositoryBar
        conversation={{ ...CONVERSATION, git_provider: "github" }}
        agentState="finished"
        connected
        onSend={(a) => (sent.push(a), true)}
      />,
    );
    fireEvent.click(screen.getByTestId("git-pull"));
    fireEvent.click(screen.getByTestId("git-push"));
    fireEvent.click(screen.getByTestId("git-create-pr"));
    const texts = sent.map((a) => (a.action === "message" ? a.args.content : ""));
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(/^Pull /);
    expect(texts[1]).toContain("without opening a pull request");
    expect(texts[2]).toContain("open a pull request");
  });

  it("waits while the agent works and hides without a repository", () => {
    mockFetch(settings({}));
    const { unmount } = renderWithApp(
      <RepositoryBar conversation={CONVERSATION} agentState="running" connected onSend={() => true} />,
    );
    expect((screen.getByTestId("git-push") as HTMLButtonElement).disabled).toBe(true);
    unmount();
    renderWithApp(<RepositoryBar conversation={{ ...CONVERSATION, selected_repository: null }} agentState="finished" connected onSend={() => true} />);
    expect(screen.queryByTestId("repository-bar")).toBeNull();
  });
});
