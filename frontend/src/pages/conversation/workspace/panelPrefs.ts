/**
 * The workspace panel's layout as the user left it — its width, whether it is
 * hidden, and the last tab — kept in localStorage so a reload or the next
 * conversation opens it the same way. Stored values are checked on the way in:
 * anything unexpected falls back to the default.
 */
const WIDTH_KEY = "openhands:workspace-width";
const COLLAPSED_KEY = "openhands:workspace-collapsed";
const TAB_KEY = "openhands:workspace-tab";

/** The panel's share of the conversation area's width. */
export const MIN_WIDTH = 0.25;
export const MAX_WIDTH = 0.75;
export const DEFAULT_WIDTH = 0.55;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: nothing remembered
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage full or disabled: the layout just is not remembered.
  }
}

export function clampWidth(width: number): number {
  if (!Number.isFinite(width)) return DEFAULT_WIDTH;
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width));
}

export function storedWidth(): number {
  const raw = read(WIDTH_KEY);
  const value = raw === null ? NaN : Number(raw);
  return Number.isFinite(value) ? clampWidth(value) : DEFAULT_WIDTH;
}

export function storeWidth(width: number): void {
  write(WIDTH_KEY, clampWidth(width).toFixed(3));
}

export function storedCollapsed(): boolean {
  return read(COLLAPSED_KEY) === "true";
}

export function storeCollapsed(collapsed: boolean): void {
  write(COLLAPSED_KEY, String(collapsed));
}

export function storedTab<T extends string>(ids: readonly T[], fallback: T): T {
  const raw = read(TAB_KEY);
  return ids.find((id) => id === raw) ?? fallback;
}

export function storeTab(id: string): void {
  write(TAB_KEY, id);
}
