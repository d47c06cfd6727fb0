/** The conversations, reachable from every page, each with its live status. */
import { useTranslation } from "../../i18n/useTranslation";
import { Link } from "react-router-dom";
import { useConversationList } from "../../hooks/useConversationList";
import { SidebarItem } from "./SidebarItem";

export const SIDEBAR_LIMIT = 30;

export function ConversationSidebar({ id, open }: { id: string; open: boolean }) {
  const { conversations, error } = useConversationList(SIDEBAR_LIMIT);
  const { t } = useTranslation(["navigation", "common"]);
  return (
    <aside id={id} className="sidebar" data-open={open} aria-label={t("sidebar.label")} data-testid="sidebar">
      <div className="sidebar__head">
        <h2 className="sidebar__title">{t("sidebar.label")}</h2>
        <Link to="/" className="button button--small" data-testid="sidebar-new">
          {t("sidebar.new")}
        </Link>
      </div>
      {error && (
        <p className="form-error sidebar__error" role="alert">
          {t("sidebar.loadFailed", { error })}
        </p>
      )}
      {conversations === null && !error && <p className="muted sidebar__empty">{t("common:loading")}</p>}
      {conversations?.length === 0 && <p className="muted sidebar__empty">{t("sidebar.empty")}</p>}
      <ul className="sidebar__list" data-testid="sidebar-list">
        {conversations?.map((c) => (
          <SidebarItem key={c.conversation_id} conversation={c} />
        ))}
      </ul>
    </aside>
  );
}
