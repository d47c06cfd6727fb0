/** The chat box's send, wrapped so each sent message shows at once (see echoes.ts). */
import { useCallback, useEffect, useMemo, useState } from "react";
import type { OhEvent, UserAction } from "../../api/types";
import type { NoticeItem } from "../../state/conversationReducer";
import { echoOf, unconfirmedEchoes, type Echo } from "./echoes";

export function useEchoes(
  conversationId: string,
  events: readonly OhEvent[],
  notices: readonly NoticeItem[],
  send: (action: UserAction) => boolean,
): { echoes: Echo[]; sendMessage: (action: UserAction) => boolean } {
  const [sent, setSent] = useState<Echo[]>([]);
  useEffect(() => setSent([]), [conversationId]);
  const echoes = useMemo(() => unconfirmedEchoes(sent, events), [sent, events]);
  // Confirmed echoes are forgotten, so they are not matched again.
  useEffect(() => {
    if (echoes.length < sent.length) setSent(echoes);
  }, [echoes, sent.length]);
  // An error from the server (e.g. images refused for this model) may mean a message was
  // dropped: its echo goes, and the message still shows if its event does arrive.
  const newestNotice = notices[notices.length - 1]?.key ?? null;
  useEffect(() => {
    if (newestNotice !== null) setSent([]);
  }, [newestNotice]);
  const sendMessage = useCallback(
    (action: UserAction) => {
      const ok = send(action);
      const echo = ok ? echoOf(action, events) : null;
      if (echo) setSent((list) => [...list, echo]);
      return ok;
    },
    [send, events],
  );
  return { echoes, sendMessage };
}
