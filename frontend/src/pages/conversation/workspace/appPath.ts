/** The address bar of the Apps tab's preview: a path typed by the user, kept on the app's own origin. */

/**
 * `path` (e.g. "/docs?x=1", "docs", "") resolved against the app at `base`, or null
 * when it would leave the app's origin (another host, a scheme, "//host").
 */
export function appUrl(base: string, path: string): string | null {
  let origin: URL;
  try {
    origin = new URL(base);
  } catch {
    return null;
  }
  const trimmed = path.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith("//") || trimmed.startsWith("\\")) return null;
  const relative = trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
  try {
    const target = new URL(relative, origin.origin);
    return target.origin === origin.origin ? target.href : null;
  } catch {
    return null;
  }
}

/** The path, query and fragment of `url` as the bar shows it. */
export function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}${parsed.hash}`;
  } catch {
    return "/";
  }
}

/** `host:port` of `url`, or the text itself when it is not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
