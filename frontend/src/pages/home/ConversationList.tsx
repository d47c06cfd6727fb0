import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { listConversations } from "../../api/conversations";
import type { ConversationInfo } from "../../api/types";
import { useConversationsChanged } from "../../state/conversationChanges";
import { ConversationCard, HOME_LIST } from "./ConversationCard";

export function ConversationList() {
  const { t } = useTranslation(["home", "common"]);
  const [items, setItems] = useState<ConversationInfo[]>([]);
  const [nextPage, setNextPage] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async (pageId: string | null) => {
    setLoading(true);
    try {
      const page = await listConversations(pageId);
      setItems((current) => {
        const base = pageId ? current : [];
        const seen = new Set(base.map((c) => c.conversation_id));
        return [...base, ...page.results.filter((c) => !seen.has(c.conversation_id))];
      });
      setNextPage(page.next_page_id);
      setError(null);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void load(null);
  }, [load]);
  // A change made elsewhere on the page (the sidebar) shows here at once.
  useConversationsChanged(() => void load(null), HOME_LIST);

  const onChanged = useCallback((updated: ConversationInfo) => {
    setItems((list) => list.map((c) => (c.conversation_id === updated.conversation_id ? updated : c)));
  }, []);
  const onDeleted = useCallback((id: string) => {
    setItems((list) => list.filter((c) => c.conversation_id !== id));
  }, []);

  return (
    <section className="conversation-list" aria-labelledby="conversations-title">
      <div className="section-head">
        <h2 id="conversations-title">{t("list.title")}</h2>
        <button type="button" className="button button--ghost" onClick={() => void load(null)} aria-label={t("list.refreshLabel")}>
          {t("list.refresh")}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {t("list.loadFailed", { error })}
        </p>
      )}
      {!loading && !error && items.length === 0 && (
        <p className="empty" data-testid="no-conversations">
          {t("list.empty")}
        </p>
      )}
      <ul className="cards" data-testid="conversation-list">
        {items.map((c) => (
          <li key={c.conversation_id}>
            <ConversationCard conversation={c} onChanged={onChanged} onDeleted={onDeleted} />
          </li>
        ))}
      </ul>
      {loading && <p className="muted" role="status">{t("common:loading")}</p>}
      {nextPage && !loading && (
        <button type="button" className="button" onClick={() => void load(nextPage)} data-testid="load-more-conversations">
          {t("list.loadMore")}
        </button>
      )}
    </section>
  );
}
