/** What the terminal shows for each event, and what it sends (kept apart from xterm). */
import type { OhEvent, UserAction } from "../../../api/types";

const PROMPT = "\x1b[1;32m$\x1b[0m ";

/** The terminal text for one event, or null when it is not terminal traffic. */
export function terminalText(event: OhEvent): string | null {
  if ("action" in event) {
    if (event.action !== "run" || event.args.hidden) return null;
    return event.args.is_input ? `\x1b[2m[input] ${event.args.command}\x1b[0m\r\n` : `${PROMPT}${event.args.command}\r\n`;
  }
  if (event.observation !== "run" || event.extras.hidden) return null;
  const text = event.content.replace(/\r?\n/g, "\r\n");
  return text && !text.endsWith("\r\n") ? `${text}\r\n` : text;
}

export function runCommand(command: string): UserAction {
  return { action: "run", args: { command, is_input: false, hidden: false } };
}
