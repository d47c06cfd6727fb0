import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { getBranches, getRepositories, searchBranches, searchRepositories } from "../../api/git";
import type { Branch, ProviderType, Repository } from "../../api/types";
import { hasNextPage, recentFirst, recentRepositories } from "../../state/recentRepositories";
import { SearchCombo, type ComboOption } from "./SearchCombo";

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

// Typing pauses this long before the server is asked (one search per pause, not per key).
const SEARCH_PAUSE_MS = 300;

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text.trim());
}

function matches(name: string, text: string): boolean {
  return name.toLowerCase().includes(text.trim().toLowerCase());
}

/** `text` once it has stayed the same for SEARCH_PAUSE_MS. */
function useSettled(text: string): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return settled;
}

interface Listing<T> {
  items: T[];
  page: number;
  more: boolean;
  loading: boolean;
  error: string | null;
}

const EMPTY_LISTING = { items: [], page: 0, more: false, loading: true, error: null };

/** Optional repository and branch, shown only when a git provider token is stored. */
export function RepositoryPicker({ providers, value, onChange }: Props) {
  const { t } = useTranslation("repos");
  const [provider, setProvider] = useState<ProviderType>(providers[0] ?? "github");
  const [repoText, setRepoText] = useState(value?.repository ?? "");
  const [repos, setRepos] = useState<Listing<Repository>>(EMPTY_LISTING);
  const [found, setFound] = useState<{ text: string; items: Repository[]; error: string | null } | null>(null);
  const settledRepoText = useSettled(repoText);

  function loadRepos(page: number) {
    setRepos((r) => ({ ...r, loading: true, error: null }));
    return getRepositories(provider, page).then(
      (list) =>
        setRepos((r) => ({
          items: page === 1 ? list : [...r.items, ...list.filter((x) => !r.items.some((y) => y.full_name === x.full_name))],
          page,
          more: hasNextPage(list[0]?.link_header),
          loading: false,
          error: null,
        })),
      (reason: unknown) => setRepos((r) => ({ ...r, loading: false, error: errorText(reason) })),
    );
  }

  useEffect(() => {
    setRepos(EMPTY_LISTING);
    setFound(null);
    void loadRepos(1);
    // loadRepos reads provider, the only input that restarts the listing.
  }, [provider]);

  // The server searches what the listing has not loaded yet, and resolves a pasted URL.
  useEffect(() => {
    const text = settledRepoText.trim();
    if (!text || text === value?.repository) {
      setFound(null);
      return;
    }
    let cancelled = false;
    searchRepositories(text, provider).then(
      (items) => !cancelled && setFound({ text, items, error: null }),
      (reason: unknown) => !cancelled && setFound({ text, items: [], error: errorText(reason) }),
    );
    return () => {
      cancelled = true;
    };
  }, [settledRepoText, provider, value?.repository]);

  const recent = useMemo(
    () =>
      recentRepositories()
        .filter((r) => r.provider === provider)
        .map((r) => r.repository),
    [provider],
  );

  const repoOptions = useMemo((): ComboOption[] => {
    const text = repoText.trim();
    const showAll = !text || text === value?.repository;
    const names: string[] = [];
    const add = (name: string) => !names.includes(name) && names.push(name);
    if (isUrl(text) && !showAll) {
      for (const r of found?.text === text ? found.items : []) add(r.full_name);
    } else {
      if (showAll) recent.forEach(add);
      for (const r of repos.items) if (showAll || matches(r.full_name, text)) add(r.full_name);
      if (!showAll && found?.text === text) for (const r of found.items) add(r.full_name);
    }
    return recentFirst(names, (n) => n, showAll ? recent : []).map((name) => ({
      key: name,
      label: name,
      detail: recent.includes(name) ? t("picker.recent") : undefined,
    }));
  }, [repoText, value?.repository, found, repos.items, recent, t]);

  const searching = repoText.trim() !== "" && repoText.trim() !== value?.repository && found?.text !== repoText.trim();
  // With text typed, the search is what matters; a failed listing only matters without one.
  const typed = repoText.trim() !== "" && repoText.trim() !== value?.repository;
  const repoStatus = typed
    ? found?.error
      ? t("picker.searchFailed", { error: found.error })
      : searching
        ? t("picker.searching")
        : repoOptions.length === 0
          ? isUrl(repoText)
            ? t("picker.noRepoAtUrl")
            : t("picker.noMatchingRepo")
          : null
    : repos.error
      ? t("picker.listFailed", { error: repos.error })
      : repos.loading
        ? t("picker.loadingRepos")
        : repoOptions.length === 0
          ? t("picker.noRepos")
          : null;

  return (
    <fieldset className="repo-picker">
      <legend>{t("picker.legend")}</legend>
      {providers.length > 1 && (
        <label>
          {t("picker.provider")}
          <select
            aria-label={t("picker.providerLabel")}
            value={provider}
            onChange={(e) => {
              setProvider(e.target.value as ProviderType);
              setRepoText("");
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
      <SearchCombo
        id="repository-search"
        testId="repository-search"
        label={t("picker.repository")}
        placeholder={t("picker.repositoryPlaceholder")}
        text={repoText}
        onText={(text) => {
          setRepoText(text);
          if (!text.trim()) onChange(null);
        }}
        options={repoOptions}
        selected={value?.repository ?? null}
        onPick={(name) => {
          setRepoText(name);
          onChange({ provider, repository: name, branch: null });
        }}
        footer={
          <>
            {repoStatus && (
              <p className="hint" role="status" data-testid="repository-search-status">
                {repoStatus}
              </p>
            )}
            {repos.more && !repoText.trim() && (
              <button
                type="button"
                className="button button--small button--ghost combo__more"
                data-testid="repository-load-more"
                disabled={repos.loading}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => void loadRepos(repos.page + 1)}
              >
                {t("picker.loadMoreRepos")}
              </button>
            )}
          </>
        }
      />
      {value && (
        <BranchPicker
          key={`${value.provider}:${value.repository}`}
          provider={value.provider}
          repository={value.repository}
          mainBranch={repos.items.find((r) => r.full_name === value.repository)?.main_branch ?? null}
          branch={value.branch}
          onChange={(branch) => onChange({ ...value, branch })}
        />
      )}
      {value && (
        <p className="hint" data-testid="repository-choice">
          {t("picker.selected", { repository: value.repository })}
          {value.branch ? ` @ ${value.branch}` : ""}
        </p>
      )}
    </fieldset>
  );
}

interface BranchProps {
  provider: ProviderType;
  repository: string;
  mainBranch: string | null;
  branch: string | null;
  onChange(branch: string | null): void;
}

const DEFAULT_KEY = "\u0000default";

function BranchPicker({ provider, repository, mainBranch, branch, onChange }: BranchProps) {
  const { t } = useTranslation("repos");
  const [text, setText] = useState(branch ?? "");
  const [listing, setListing] = useState<Listing<Branch>>(EMPTY_LISTING);
  const [found, setFound] = useState<{ text: string; items: Branch[] } | null>(null);
  const settled = useSettled(text);

  function load(page: number) {
    setListing((l) => ({ ...l, loading: true, error: null }));
    return getBranches(repository, page).then(
      (result) =>
        setListing((l) => ({
          items: page === 1 ? result.branches : [...l.items, ...result.branches],
          page,
          more: result.has_next_page,
          loading: false,
          error: null,
        })),
      (reason: unknown) => setListing((l) => ({ ...l, loading: false, error: errorText(reason) })),
    );
  }

  useEffect(() => {
    void load(1);
    // The component is keyed by repository: this runs once per repository.
  }, []);

  useEffect(() => {
    const query = settled.trim();
    if (!query || query === branch) {
      setFound(null);
      return;
    }
    let cancelled = false;
    searchBranches(repository, query, provider).then(
      (items) => !cancelled && setFound({ text: query, items }),
      () => !cancelled && setFound({ text: query, items: [] }),
    );
    return () => {
      cancelled = true;
    };
  }, [settled, branch, repository, provider]);

  const options = useMemo((): ComboOption[] => {
    const query = text.trim();
    const showAll = !query || query === branch;
    const names: string[] = [];
    const add = (name: string) => !names.includes(name) && names.push(name);
    for (const b of listing.items) if (showAll || matches(b.name, query)) add(b.name);
    if (!showAll && found?.text === query) for (const b of found.items) add(b.name);
    const list: ComboOption[] = names.map((name) => ({
      key: name,
      label: name,
      detail: name === mainBranch ? t("picker.defaultBadge") : undefined,
    }));
    if (showAll) {
      const label = mainBranch ? t("picker.defaultBranchNamed", { branch: mainBranch }) : t("picker.defaultBranch");
      list.unshift({ key: DEFAULT_KEY, label });
    }
    return list;
  }, [text, branch, listing.items, found, mainBranch, t]);

  const status = listing.error
    ? t("picker.branchListFailed", { error: listing.error })
    : listing.loading
      ? t("picker.loadingBranches")
      : options.length === 0
        ? t("picker.noMatchingBranch")
        : null;

  return (
    <SearchCombo
      id="branch-search"
      testId="branch-search"
      label={t("picker.branch")}
      placeholder={mainBranch ? t("picker.branchPlaceholderNamed", { branch: mainBranch }) : t("picker.branchPlaceholder")}
      text={text}
      onText={(typed) => {
        setText(typed);
        if (!typed.trim()) onChange(null);
      }}
      options={options}
      selected={branch ?? DEFAULT_KEY}
      onPick={(key) => {
        const next = key === DEFAULT_KEY ? null : key;
        setText(next ?? "");
        onChange(next);
      }}
      footer={
        <>
          {status && (
            <p className="hint" role="status">
              {status}
            </p>
          )}
          {listing.more && !text.trim() && (
            <button
              type="button"
              className="button button--small button--ghost combo__more"
              data-testid="branch-load-more"
              disabled={listing.loading}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => void load(listing.page + 1)}
            >
              {t("picker.loadMoreBranches")}
            </button>
          )}
        </>
      }
    />
  );
}
