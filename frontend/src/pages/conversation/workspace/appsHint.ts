/** Wording of the Apps tab when nothing is served yet. */

/** "5000", "5000 or 5001", "5000, 5001 or 5002". */
function portList(ports: readonly number[]): string {
  const sorted = [...new Set(ports)].sort((a, b) => a - b).map(String);
  if (sorted.length <= 1) return sorted.join("");
  return `${sorted.slice(0, -1).join(", ")} or ${sorted[sorted.length - 1]}`;
}

/** What to tell the user while no reserved app port answers. */
export function appsHint(ports: readonly number[]): string {
  const where = ports.length === 0 ? "on one of the sandbox's app ports" : `on port ${portList(ports)}`;
  return `No app is being served yet. When the agent starts a web server ${where}, it shows up here.`;
}

/** How often the tab looks again while it is shown. */
export const LIVE_HOSTS_POLL_MS = 5000;
