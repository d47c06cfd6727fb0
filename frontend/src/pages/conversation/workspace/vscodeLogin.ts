/**
 * How the VS Code tab signs in to the sandbox's code-server.
 *
 * The server answers `http://localhost:<port>/?tkn=<token>&folder=<dir>`. code-server knows
 * no URL token: the token is its password, posted once to `/login`, which sets a session
 * cookie and redirects to the folder. The host becomes the one this page was loaded from
 * when the server said `localhost`, so that the frame is same-site with the UI and the
 * browser keeps the cookie.
 */
export interface VSCodeLogin {
  /** Where to post the token (`password` field). */
  action: string;
  token: string;
  /** The workspace URL once signed in, without the token. */
  openUrl: string;
}

export function vscodeLogin(vscodeUrl: string, pageHostname: string): VSCodeLogin | null {
  let url: URL;
  try {
    url = new URL(vscodeUrl);
  } catch {
    return null;
  }
  const token = url.searchParams.get("tkn");
  if (!token) return null;
  if (url.hostname === "localhost" && pageHostname) url.hostname = pageHostname;
  const folder = url.searchParams.get("folder");
  const target = folder ? `/?${new URLSearchParams({ folder }).toString()}` : "/";
  return {
    action: `${url.origin}/login?${new URLSearchParams({ to: target }).toString()}`,
    token,
    openUrl: `${url.origin}${target}`,
  };
}
