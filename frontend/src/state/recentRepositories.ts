/**
 * Repositories the user started conversations with, newest first, so the
 * pickers can offer them before the provider's own list. Kept in localStorage
 * (names only, never tokens).
 */
import type { ProviderType } from "../api/types";

const KEY = "openhands:recent-repositories";
export const MAX_RECENT = 8;

export interface RecentRepository {
  provider: ProviderType;
  repository: string;
}

export function recentRepositories(): RecentRepository[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (item): item is RecentRepository =>
        typeof item === "object" &&
        item !== null &&
        typeof (item as RecentRepository).provider === "string" &&
        typeof (item as RecentRepository).repository === "string",
    );
  } catch {
    return [];
  }
}

export function rememberRepository(entry: RecentRepository): void {
  const rest = recentRepositories().filter((r) => !(r.provider === entry.provider && r.repository === entry.repository));
  try {
    localStorage.setItem(KEY, JSON.stringify([entry, ...rest].slice(0, MAX_RECENT)));
  } catch {
    // Storage disabled: the list is a convenience only.
  }
}

/** `items` with the recently used ones moved to the front (most recent first), order kept otherwise. */
export function recentFirst<T>(items: readonly T[], nameOf: (item: T) => string, recent: readonly string[]): T[] {
  const rank = new Map(recent.map((name, i) => [name, i]));
  const known = items.filter((i) => rank.has(nameOf(i))).sort((a, b) => (rank.get(nameOf(a)) ?? 0) - (rank.get(nameOf(b)) ?? 0));
  return [...known, ...items.filter((i) => !rank.has(nameOf(i)))];
}

/** Whether a Link header (the first repository's `link_header`) announces a next page. */
export function hasNextPage(linkHeader: string | null | undefined): boolean {
  return !!linkHeader && /rel="?next"?/.test(linkHeader);
}
