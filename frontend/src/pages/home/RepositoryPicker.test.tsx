import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Repository, SuggestedTask } from "../../api/types";
import { rememberRepository } from "../../state/recentRepositories";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import { HomePage } from "./HomePage";

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

const SETTINGS = {
  ...DEFAULT_SETTINGS,
  llm_api_key_set: true,
  search_api_key_set: false,
  provider_tokens_set: { github: null },
};

function repo(full_name: string, extra: Partial<Repository> = {}): Repository {
  return { id: full_name, full_name, git_provider: "github", is_public: true, main_branch: "main", ...extra };
}

const CREATED = { body: { status: "ok", conversation_id: "abc", message: null, conversation_status: "STARTING" } };
const BASE_ROUTES = {
  "GET /api/settings": { body: SETTINGS },
  "GET /api/conversations": { body: { results: [], next_page_id: null } },
  "GET /api/user/suggested-tasks": { body: [] },
  "GET /api/user/repository/branches": {
    body: { branches: [{ name: "main", commit_sha: "1", protected: false }, { name: "dev", commit_sha: "2", protected: false }], has_next_page: false, current_page: 1, per_page: 100, total_count: 2 },
  },
  "POST /api/conversations": CREATED,
};

// The picker waits for a pause in typing before searching; a busy machine needs room.
const SLOW = { timeout: 5000 };

function optionNames(testId: string): string[] {
  return within(screen.getByTestId(`${testId}-options`))
    .getAllByRole("option")
    .map((o) => o.getAttribute("data-value") ?? "");
}

describe("RepositoryPicker on Home", () => {
  it("resolves a pasted URL through the server search and starts with that repository", async () => {
    const url = "https://github.com/someone/elsewhere/tree/main/src";
    const { calls } = mockFetch({
      ...BASE_ROUTES,
      "GET /api/user/repositories": { body: [repo("me/mine")] },
      "GET /api/user/search/repositories": { body: [repo("someone/elsewhere")] },
    });
    renderWithApp(<HomePage />);
    const box = await screen.findByTestId("repository-search");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: url } });
    await waitFor(() => expect(optionNames("repository-search")).toEqual(["someone/elsewhere"]), SLOW);
    const search = calls.find((c) => c.url.startsWith("/api/user/search/repositories"));
    expect(new URL(search?.url ?? "", "http://x").searchParams.get("query")).toBe(url);
    expect(new URL(search?.url ?? "", "http://x").searchParams.get("selected_provider")).toBe("github");

    fireEvent.click(screen.getByRole("option", { name: "someone/elsewhere" }));
    expect(screen.getByTestId("repository-choice").textContent).toContain("someone/elsewhere");
    fireEvent.change(screen.getByTestId("new-conversation-task"), { target: { value: "Read it" } });
    fireEvent.click(screen.getByTestId("start-conversation"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true), SLOW);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      initial_user_msg: "Read it",
      repository: "someone/elsewhere",
      git_provider: "github",
    });
    expect(JSON.parse(localStorage.getItem("openhands:recent-repositories") ?? "[]")[0]).toEqual({
      provider: "github",
      repository: "someone/elsewhere",
    });
  });

  it("pages past the first 100 and lists recently used repositories first", async () => {
    rememberRepository({ provider: "github", repository: "me/r2" });
    let pages = 0;
    const { calls } = mockFetch({
      ...BASE_ROUTES,
      "GET /api/user/repositories": () => {
        pages += 1;
        return pages === 1
          ? { body: [repo("me/r1", { link_header: '<https://api.github.com/user/repos?page=2>; rel="next"' }), repo("me/r2")] }
          : { body: [repo("me/r3")] };
      },
    });
    renderWithApp(<HomePage />);
    const box = await screen.findByTestId("repository-search");
    fireEvent.focus(box);
    await waitFor(() => expect(optionNames("repository-search")).toEqual(["me/r2", "me/r1"]), SLOW);
    expect(screen.getByRole("option", { name: /me\/r2/ }).textContent).toContain("recent");
    fireEvent.click(screen.getByTestId("repository-load-more"));
    await waitFor(() => expect(optionNames("repository-search")).toEqual(["me/r2", "me/r1", "me/r3"]), SLOW);
    const second = calls.filter((c) => c.url.startsWith("/api/user/repositories"))[1];
    expect(new URL(second?.url ?? "", "http://x").searchParams.get("page")).toBe("2");
  });

  it("filters loaded repositories as one types and picks a branch", async () => {
    const { calls } = mockFetch({
      ...BASE_ROUTES,
      "GET /api/user/repositories": { body: [repo("me/alpha"), repo("me/beta")] },
      "GET /api/user/search/repositories": { body: [] },
    });
    renderWithApp(<HomePage />);
    const box = await screen.findByTestId("repository-search");
    fireEvent.focus(box);
    fireEvent.change(box, { target: { value: "bet" } });
    await waitFor(() => expect(optionNames("repository-search")).toEqual(["me/beta"]), SLOW);
    fireEvent.keyDown(box, { key: "Enter" });
    const branch = await screen.findByTestId("branch-search");
    fireEvent.focus(branch);
    await waitFor(() => expect(screen.getByRole("option", { name: "dev" })).toBeTruthy(), SLOW);
    fireEvent.click(screen.getByRole("option", { name: "dev" }));
    fireEvent.click(screen.getByTestId("start-conversation"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true), SLOW);
    expect(calls.find((c) => c.method === "POST")?.body).toMatchObject({ repository: "me/beta", selected_branch: "dev" });
  });
});

describe("SuggestedTasks on Home", () => {
  const TASK: SuggestedTask = { git_provider: "github", task_type: "FAILING_CHECKS", repo: "me/alpha", issue_number: 7, title: "CI is red" };

  it("starts a suggested task by sending it as suggested_task", async () => {
    const { calls } = mockFetch({
      ...BASE_ROUTES,
      "GET /api/user/repositories": { body: [] },
      "GET /api/user/suggested-tasks": { body: [TASK] },
    });
    renderWithApp(<HomePage />);
    const item = await screen.findByTestId("suggested-task");
    expect(item.textContent).toContain("me/alpha#7");
    fireEvent.click(within(item).getByRole("button"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true), SLOW);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      repository: "me/alpha",
      git_provider: "github",
      suggested_task: TASK,
    });
  });

  it("is not asked for without a git token", async () => {
    const { calls } = mockFetch({ ...BASE_ROUTES, "GET /api/settings": { body: { ...SETTINGS, provider_tokens_set: {} } } });
    renderWithApp(<HomePage />);
    await screen.findByTestId("new-conversation-task");
    await waitFor(() => expect(calls.some((c) => c.url.startsWith("/api/conversations"))).toBe(true), SLOW);
    expect(screen.queryByTestId("suggested-tasks")).toBeNull();
    expect(calls.some((c) => c.url.startsWith("/api/user/"))).toBe(false);
  });
});
