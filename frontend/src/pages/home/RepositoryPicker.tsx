import { useEffect, useState } from "react";
import { getBranches, getRepositories } from "../../api/git";
import type { Branch, ProviderType, Repository } from "../../api/types";

export interface RepositoryChoice {
  provider: ProviderType;
  repository: string;
  branch: string | null;
}

interface Props {
  providers: ProviderType[];
  value: RepositoryChoice | null;
  onChange(value: RepositoryChoice | null): void;
}

/** Optional repository and branch, shown only when a git provider token is stored. */
export function RepositoryPicker({ providers, value, onChange }: Props) {
  const [provider, setProvider] = useState<ProviderType>(providers[0] ?? "github");
  const [repos, setRepos] = useState<Repository[] | null>(null);
  const [branches, setBranches] = useState<Branch[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    setRepos(null);
    setError(null);
    getRepositories(provider).then(
      (list) => !cancelled && setRepos(list),
      (reason: unknown) => !cancelled && setError(reason instanceof Error ? reason.message : String(reason)),
    );
    return () => {
      cancelled = true;
    };
  }, [provider]);

  const repository = value?.repository ?? "";
  useEffect(() => {
    let cancelled = false;
    setBranches(null);
    if (!repository) return;
    getBranches(repository).then(
      (page) => !cancelled && setBranches(page.branches),
      () => !cancelled && setBranches([]),
    );
    return () => {
      cancelled = true;
    };
  }, [repository]);

  const selectedRepo = repos?.find((r) => r.full_name === repository);

  return (
    <fieldset className="repo-picker">
      <legend>Repository (optional)</legend>
      {providers.length > 1 && (
        <label>
          Provider
          <select
            aria-label="Git provider"
            value={provider}
            onChange={(e) => {
              setProvider(e.target.value as ProviderType);
              onChange(null);
            }}
          >
            {providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Repository
        <select
          aria-label="Repository"
          data-testid="repository-select"
          value={repository}
          disabled={!repos}
          onChange={(e) => {
            const name = e.target.value;
            onChange(name ? { provider, repository: name, branch: null } : null);
          }}
        >
          <option value="">{repos ? "No repository" : "Loading repositories…"}</option>
          {repos?.map((r) => (
            <option key={String(r.id)} value={r.full_name}>
              {r.full_name}
            </option>
          ))}
        </select>
      </label>
      {value && (
        <label>
          Branch
          <select
            aria-label="Branch"
            data-testid="branch-select"
            value={value.branch ?? ""}
            disabled={!branches}
            onChange={(e) => onChange({ ...value, branch: e.target.value || null })}
          >
            <option value="">{selectedRepo?.main_branch ? `Default (${selectedRepo.main_branch})` : "Default branch"}</option>
            {branches?.map((b) => (
              <option key={b.name} value={b.name}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {error && (
        <p className="form-error" role="alert">
          Could not list repositories: {error}
        </p>
      )}
    </fieldset>
  );
}
