/**
 * Git changes in the workspace: every changed file's diff in one scroll (git/changes,
 * then git/diff for each file, a few at a time). The list on the left jumps to a
 * file's diff.
 */
import { useEffect, useRef, useState } from "react";
import { ApiError } from "../../../api/http";
import type { GitChange, GitChangeStatus, GitDiff } from "../../../api/types";
import type { WorkspaceApi } from "../../../api/workspace";
import { DiffView } from "../display/DiffView";

const STATUS_LABEL: Record<GitChangeStatus, string> = {
  M: "modified",
  A: "added",
  D: "deleted",
  R: "renamed",
  U: "untracked",
};

// Diffs asked for at once: enough to fill the view quickly without flooding the sandbox.
const PARALLEL_DIFFS = 4;

type DiffState = { diff: GitDiff } | { error: string };

function message(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** Runs `load` for every path, `PARALLEL_DIFFS` at a time, reporting each result as it comes. */
async function loadAll(
  paths: readonly string[],
  load: (path: string) => Promise<GitDiff>,
  report: (path: string, state: DiffState) => void,
  cancelled: () => boolean,
): Promise<void> {
  let next = 0;
  async function worker() {
    while (next < paths.length && !cancelled()) {
      const path = paths[next++] as string;
      try {
        const diff = await load(path);
        if (!cancelled()) report(path, { diff });
      } catch (reason) {
        if (!cancelled()) report(path, { error: message(reason) });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL_DIFFS, paths.length) }, worker));
}

function sectionId(path: string): string {
  return `diff-${encodeURIComponent(path).replace(/%/g, "_")}`;
}

export function ChangesTab({ workspace, changeId }: { workspace: WorkspaceApi; changeId: number }) {
  const [changes, setChanges] = useState<GitChange[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [diffs, setDiffs] = useState<ReadonlyMap<string, DiffState>>(new Map());
  const [version, setVersion] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(
      () => {
        workspace.gitChanges().then(
          (list) => {
            if (cancelled) return;
            setChanges(list);
            setError(null);
            // Old diffs stay on screen until their new version arrives.
            setDiffs((old) => new Map([...old].filter(([path]) => list.some((c) => c.path === path))));
            void loadAll(
              list.map((c) => c.path),
              (path) => workspace.gitDiff(path),
              (path, state) => setDiffs((old) => new Map(old).set(path, state)),
              () => cancelled,
            );
          },
          (reason: unknown) => {
            if (cancelled) return;
            setChanges(null);
            setError(
              reason instanceof ApiError && reason.status === 404 ? "The workspace is not a git repository." : message(reason),
            );
          },
        );
      },
      version === 0 ? 0 : 300,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [workspace, changeId, version]);

  function jumpTo(path: string) {
    const section = scroller.current?.querySelector<HTMLElement>(`#${sectionId(path)}`);
    section?.scrollIntoView({ block: "start" });
    section?.focus({ preventScroll: true });
  }

  return (
    <div className="changes-tab" data-testid="git-changes">
      <div className="toolbar" role="toolbar" aria-label="Git changes">
        <button type="button" className="button button--small" onClick={() => setVersion((v) => v + 1)} aria-label="Refresh git changes">
          Refresh
        </button>
        {changes && changes.length > 0 && (
          <span className="muted toolbar__note">
            {changes.length} changed file{changes.length === 1 ? "" : "s"}
          </span>
        )}
      </div>
      <div className="changes-tab__body">
        <div className="changes-list">
          {error && <p className="muted">{error}</p>}
          {changes && changes.length === 0 && <p className="muted">No changes.</p>}
          {changes && changes.length > 0 && (
            <ul aria-label="Changed files">
              {changes.map((c) => (
                <li key={c.path}>
                  <button type="button" className="tree__item" data-testid="git-change" onClick={() => jumpTo(c.path)}>
                    <span className={`git-status git-status--${c.status}`} title={STATUS_LABEL[c.status]}>
                      {c.status}
                    </span>
                    <span className="visually-hidden">{STATUS_LABEL[c.status]}: </span>
                    {c.path}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="changes-diff" data-testid="git-diff" ref={scroller}>
          {changes?.map((c) => {
            const state = diffs.get(c.path);
            return (
              <section
                key={c.path}
                id={sectionId(c.path)}
                className="changes-diff__file"
                data-testid="git-diff-file"
                data-path={c.path}
                aria-label={`Changes to ${c.path}`}
                tabIndex={-1}
              >
                <h3 className="changes-diff__head">
                  <span className={`git-status git-status--${c.status}`} aria-hidden="true">
                    {c.status}
                  </span>
                  <span className="visually-hidden">{STATUS_LABEL[c.status]}: </span>
                  {c.path}
                </h3>
                {!state && <p className="muted">Loading the diff…</p>}
                {state && "error" in state && (
                  <p className="form-error" role="alert">
                    {state.error}
                  </p>
                )}
                {state && "diff" in state && (
                  <DiffView original={state.diff.original} modified={state.diff.modified} label={`Diff of ${c.path}`} />
                )}
              </section>
            );
          })}
        </div>
      </div>
    </div>
  );
}
