/**
 * The workspace tree. list-files answers entries relative to the workspace
 * root, directories ending in "/", each prefixed by the listed path; folders
 * are listed when first opened.
 */
import { memo, useEffect, useState } from "react";
import type { WorkspaceApi } from "../../../api/workspace";

interface Props {
  workspace: WorkspaceApi;
  /** Bumped to re-list everything that is open. */
  version: number;
  selected: string | null;
  onSelect(path: string): void;
}

export function baseName(entry: string): string {
  const trimmed = entry.endsWith("/") ? entry.slice(0, -1) : entry;
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

export function sortEntries(entries: string[]): string[] {
  return [...entries].sort((a, b) => {
    const dirA = a.endsWith("/");
    const dirB = b.endsWith("/");
    if (dirA !== dirB) return dirA ? -1 : 1;
    return a.localeCompare(b);
  });
}

function useListing(workspace: WorkspaceApi, path: string | undefined, version: number) {
  const [entries, setEntries] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    workspace.listFiles(path).then(
      (list) => {
        if (cancelled) return;
        setEntries(sortEntries(list));
        setError(null);
      },
      (reason: unknown) => !cancelled && setError(reason instanceof Error ? reason.message : String(reason)),
    );
    return () => {
      cancelled = true;
    };
  }, [workspace, path, version]);
  return { entries, error };
}

const Directory = memo(function Directory({
  workspace,
  path,
  version,
  selected,
  onSelect,
  depth,
}: Props & { path: string | undefined; depth: number }) {
  const { entries, error } = useListing(workspace, path, version);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  if (error) return <p className="form-error" role="alert">{error}</p>;
  if (!entries) return <p className="muted tree-loading">Loading…</p>;
  if (entries.length === 0 && depth === 0) return <p className="muted">The workspace is empty.</p>;
  return (
    <ul className="tree" role={depth === 0 ? "tree" : "group"} aria-label={depth === 0 ? "Workspace files" : undefined}>
      {entries.map((entry) => {
        const isDir = entry.endsWith("/");
        const isOpen = open.has(entry);
        return (
          <li key={entry} role="treeitem" aria-expanded={isDir ? isOpen : undefined} aria-selected={entry === selected}>
            <button
              type="button"
              className={`tree__item${entry === selected ? " tree__item--selected" : ""}`}
              style={{ paddingLeft: `${0.5 + depth * 0.9}rem` }}
              data-testid={isDir ? "file-tree-dir" : "file-tree-file"}
              data-path={entry}
              onClick={() => {
                if (!isDir) return onSelect(entry);
                setOpen((set) => {
                  const next = new Set(set);
                  if (next.has(entry)) next.delete(entry);
                  else next.add(entry);
                  return next;
                });
              }}
            >
              <span aria-hidden="true" className="tree__icon">
                {isDir ? (isOpen ? "▾" : "▸") : "·"}
              </span>
              {baseName(entry)}
            </button>
            {isDir && isOpen && (
              <Directory
                workspace={workspace}
                path={entry}
                version={version}
                selected={selected}
                onSelect={onSelect}
                depth={depth + 1}
              />
            )}
          </li>
        );
      })}
    </ul>
  );
});

export function FileTree(props: Props) {
  return (
    <nav className="file-tree" data-testid="file-explorer" aria-label="File explorer">
      <Directory {...props} path={undefined} depth={0} />
    </nav>
  );
}
