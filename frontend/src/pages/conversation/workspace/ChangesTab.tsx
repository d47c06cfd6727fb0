/** Git changes in the workspace (git/changes) and the diff of the selected file (git/diff). */
import { useEffect, useState } from "react";
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

export function ChangesTab({ workspace, changeId }: { workspace: WorkspaceApi; changeId: number }) {
  const [changes, setChanges] = useState<GitChange[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [diff, setDiff] = useState<GitDiff | null>(null);
  const [diffError, setDiffError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => {
      workspace.gitChanges().then(
        (list) => {
          if (cancelled) return;
          setChanges(list);
          setError(null);
        },
        (reason: unknown) => {
          if (cancelled) return;
          setChanges(null);
          setError(
            reason instanceof ApiError && reason.status === 404
              ? "The workspace is not a git repository."
              : reason instanceof Error
                ? reason.message
                : String(reason),
          );
        },
      );
    }, version === 0 ? 0 : 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [workspace, changeId, version]);

  useEffect(() => {
    if (!selected) return;
    let cancelled = false;
    setDiff(null);
    setDiffError(null);
    workspace.gitDiff(selected).then(
      (d) => !cancelled && setDiff(d),
      (reason: unknown) => !cancelled && setDiffError(reason instanceof Error ? reason.message : String(reason)),
    );
    return () => {
      cancelled = true;
    };
  }, [workspace, selected, changeId]);

  return (
    <div className="changes-tab" data-testid="git-changes">
      <div className="toolbar" role="toolbar" aria-label="Git changes">
        <button type="button" className="button button--small" onClick={() => setVersion((v) => v + 1)} aria-label="Refresh git changes">
          Refresh
        </button>
      </div>
      <div className="changes-tab__body">
        <div className="changes-list">
          {error && <p className="muted">{error}</p>}
          {changes && changes.length === 0 && <p className="muted">No changes.</p>}
          {changes && changes.length > 0 && (
            <ul aria-label="Changed files">
              {changes.map((c) => (
                <li key={c.path}>
                  <button
                    type="button"
                    className={`tree__item${c.path === selected ? " tree__item--selected" : ""}`}
                    data-testid="git-change"
                    aria-pressed={c.path === selected}
                    onClick={() => setSelected(c.path)}
                  >
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
        <div className="changes-diff" data-testid="git-diff">
          {!selected && <p className="muted panel-empty">Select a file to see its diff.</p>}
          {diffError && <p className="form-error" role="alert">{diffError}</p>}
          {selected && diff && <DiffView original={diff.original} modified={diff.modified} label={`Changes to ${selected}`} />}
        </div>
      </div>
    </div>
  );
}
