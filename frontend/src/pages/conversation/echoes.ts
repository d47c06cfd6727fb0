/**
 * Optimistic echo: a message the user sent is shown at once, and dropped when the
 * server's own event for it arrives (a user message with the same text, newer
 * than the events held when it was sent).
 */
import type { OhEvent, UserAction } from "../../api/types";

export interface Echo {
  key: number;
  text: string;
  images: string[];
  files: string[];
  /** Highest event id held when it was sent; its server copy comes after. */
  afterId: number;
}

let nextKey = 1;

export function echoOf(action: UserAction, events: readonly OhEvent[]): Echo | null {
  if (action.action !== "message") return null;
  let afterId = -1;
  for (const event of events) if (event.id !== undefined && event.id > afterId) afterId = event.id;
  return {
    key: nextKey++,
    text: action.args.content,
    images: action.args.image_urls,
    files: action.args.file_urls,
    afterId,
  };
}

/** The echoes whose server copy has not arrived yet, in sending order. */
export function unconfirmedEchoes(echoes: readonly Echo[], events: readonly OhEvent[]): Echo[] {
  if (echoes.length === 0) return [];
  const claimed = new Set<number>();
  return echoes.filter((echo) => {
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i];
      if (!event || event.id === undefined) continue;
      if (event.id <= echo.afterId) break;
      if (claimed.has(event.id) || event.source !== "user" || !("action" in event) || event.action !== "message") continue;
      if (event.args.content === echo.text) {
        claimed.add(event.id);
        return false;
      }
    }
    return true;
  });
}
