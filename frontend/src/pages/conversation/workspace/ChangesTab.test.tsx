import { render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { GitChange, GitDiff } from "../../../api/types";
import type { WorkspaceApi } from "../../../api/workspace";
import { ChangesTab } from "./ChangesTab";

function fakeWorkspace(changes: GitChange[], diffs: Record<string, GitDiff | Error>) {
  const gitDiff = vi.fn(async (path: string) => {
    const diff = diffs[path];
    if (!diff || diff instanceof Error) throw diff ?? new Error("unknown");
    return diff;
  });
  return { workspace: { gitChanges: vi.fn(async () => changes), gitDiff } as unknown as WorkspaceApi, gitDiff };
}

describe("ChangesTab", () => {
  it("shows every changed file's diff in one scroll", async () => {
    const changes: GitChange[] = [
      { status: "M", path: "app.py" },
      { status: "A", path: "docs/new.md" },
      { status: "D", path: "old.txt" },
      { status: "U", path: "broken.bin" },
    ];
    const { workspace, gitDiff } = fakeWorkspace(changes, {
      "app.py": { original: "a = 1\n", modified: "a = 2\n" },
      "docs/new.md": { original: "", modified: "# New\n" },
      "old.txt": { original: "gone\n", modified: "" },
      "broken.bin": new Error("Binary file"),
    });
    render(<ChangesTab workspace={workspace} changeId={0} />);
    const files = await screen.findAllByTestId("git-diff-file");
    expect(files.map((f) => f.dataset.path)).toEqual(["app.py", "docs/new.md", "old.txt", "broken.bin"]);
    await vi.waitFor(() => expect(screen.getAllByTestId("diff-view")).toHaveLength(3));
    expect(gitDiff).toHaveBeenCalledTimes(4);
    expect(within(files[0]!).getByTestId("diff-view").textContent).toContain("a = 2");
    expect(within(files[2]!).getByTestId("diff-view").textContent).toContain("gone");
    expect(within(files[3]!).getByRole("alert").textContent).toBe("Binary file");
    expect(screen.getByText("4 changed files")).toBeTruthy();
  });

  it("says so when nothing changed", async () => {
    const { workspace } = fakeWorkspace([], {});
    render(<ChangesTab workspace={workspace} changeId={0} />);
    expect(await screen.findByText("No changes.")).toBeTruthy();
  });
});
