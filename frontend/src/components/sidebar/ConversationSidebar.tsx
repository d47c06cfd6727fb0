/** The conversations, reachable from every page, each with its live status. */
import { Link } from "react-router-dom";
import { useConversationList } from "../../hooks/useConversationList";
import { SidebarItem } from "./SidebarItem";

export const SIDEBAR_LIMIT = 30;

export function ConversationSidebar({ id, open }: { id: string; open: boolean }) {
  const { conversations, error } = useConversationList(SIDEBAR_LIMIT);
  return (
    <aside id={id} className="sidebar" data-open={open} aria-label="Conversations" data-testid="sidebar">
      <div className="sidebar__head">
        <h2 className="sidebar__title">Conversations</h2>
        <Link to="/" className="button button--small" data-testid="sidebar-new">
          New
        </Link>
      </div>
      {error && (
        <p className="form-error sidebar__error" role="alert">
          Could not load conversations: {error}
        </p>
      )}
      {conversations === null && !error && <p className="muted sidebar__empty">Loading…</p>}
      {conversations?.length === 0 && <p className="muted sidebar__empty">No conversations yet.</p>}
      <ul className="sidebar__list" data-testid="sidebar-list">
        {conversations?.map((c) => (
          <SidebarItem key={c.conversation_id} conversation={c} />
        ))}
      </ul>
    </aside>
  );
}
