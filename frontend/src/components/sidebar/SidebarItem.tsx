/** One conversation in the sidebar: its live status, and rename, open in a new tab, export, stop and delete. */
import { memo, useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { NavLink, useMatch, useNavigate } from "react-router-dom";
import { deleteConversation, renameConversation, stopConversation } from "../../api/conversations";
import type { ConversationInfo } from "../../api/types";
import { useToast } from "../../hooks/ToastContext";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { conversationStatusText } from "../../state/statusText";

type Mode = "view" | "menu" | "rename" | "confirm-delete";
type Action = "rename" | "export" | "stop" | "delete";

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

export const SidebarItem = memo(function SidebarItem({ conversation }: { conversation: ConversationInfo }) {
  const id = conversation.conversation_id;
  const path = `/conversations/${id}`;
  const [mode, setMode] = useState<Mode>("view");
  const [title, setTitle] = useState(conversation.title);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const navigate = useNavigate();
  const { t } = useTranslation(["navigation", "common"]);
  const isOpen = useMatch(path) !== null;
  const root = useRef<HTMLLIElement>(null);
  const status = conversationStatusText(conversation.status, conversation.runtime_status);

  // The menu closes on a click elsewhere or Escape.
  useEffect(() => {
    if (mode !== "menu" && mode !== "confirm-delete") return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setMode("view");
    };
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setMode("view");
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [mode]);

  async function act(what: Action, run: () => Promise<unknown>, after?: () => void) {
    setBusy(true);
    try {
      await run();
      announceConversationsChanged();
      setMode("view");
      after?.();
    } catch (reason) {
      toast(t(`common:failed.${what}`, { error: errorText(reason) }), "error");
    } finally {
      setBusy(false);
    }
  }

  function onRename(event: FormEvent) {
    event.preventDefault();
    const next = title.trim();
    if (!next || next === conversation.title) {
      setMode("view");
      return;
    }
    void act("rename", () => renameConversation(id, next));
  }

  const running = conversation.status === "RUNNING" || conversation.status === "STARTING";
  return (
    <li
      ref={root}
      className={`sidebar-item${isOpen ? " sidebar-item--current" : ""}`}
      data-testid="sidebar-conversation"
      data-conversation-id={id}
      data-status={conversation.status}
    >
      {mode === "rename" ? (
        <form className="sidebar-item__rename" onSubmit={onRename}>
          <label htmlFor={`sidebar-rename-${id}`} className="visually-hidden">
            {t("sidebar.newTitle")}
          </label>
          <input
            id={`sidebar-rename-${id}`}
            data-testid="sidebar-rename-input"
            value={title}
            maxLength={200}
            autoFocus
            disabled={busy}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setMode("view")}
          />
        </form>
      ) : (
        <NavLink to={path} className="sidebar-item__link" data-testid="sidebar-conversation-link">
          <span className="sidebar-item__title">{conversation.title}</span>
          <span className={`sidebar-item__status status--${conversation.status.toLowerCase()}`} data-testid="sidebar-conversation-status">
            <span className="status-dot" aria-hidden="true" />
            {status}
          </span>
        </NavLink>
      )}
      {mode !== "rename" && (
        <button
          type="button"
          className="icon-button sidebar-item__more"
          data-testid="sidebar-item-menu"
          aria-label={t("sidebar.actionsFor", { title: conversation.title })}
          aria-expanded={mode === "menu" || mode === "confirm-delete"}
          onClick={() => setMode((m) => (m === "view" ? "menu" : "view"))}
        >
          ⋯
        </button>
      )}
      {mode === "menu" && (
        <div className="sidebar-item__menu" role="group" aria-label={t("sidebar.actionsFor", { title: conversation.title })}>
          <button
            type="button"
            className="menu-item"
            data-testid="sidebar-rename"
            onClick={() => {
              setTitle(conversation.title);
              setMode("rename");
            }}
          >
            {t("common:rename")}
          </button>
          <a className="menu-item" href={path} target="_blank" rel="noopener" data-testid="sidebar-open-new-tab" onClick={() => setMode("view")}>
            {t("sidebar.openNewTab")}
          </a>
          <button
            type="button"
            className="menu-item"
            data-testid="sidebar-export"
            disabled={busy}
            onClick={() =>
              // The download code loads on first use: most visits never export.
              void act("export", () => import("../../api/exportTrajectory").then((m) => m.exportTrajectory(conversation)))
            }
          >
            {t("common:exportTrajectory")}
          </button>
          {running && (
            <button
              type="button"
              className="menu-item"
              data-testid="sidebar-stop"
              disabled={busy}
              onClick={() => void act("stop", () => stopConversation(id))}
            >
              {t("common:stop")}
            </button>
          )}
          <button type="button" className="menu-item menu-item--danger" data-testid="sidebar-delete" onClick={() => setMode("confirm-delete")}>
            {t("common:delete")}
          </button>
        </div>
      )}
      {mode === "confirm-delete" && (
        <div className="sidebar-item__menu" role="group" aria-label={t("sidebar.confirmDelete")}>
          <span className="sidebar-item__question">{t("common:deleteConversationQuestion")}</span>
          <button
            type="button"
            className="menu-item menu-item--danger"
            data-testid="sidebar-confirm-delete"
            disabled={busy}
            onClick={() =>
              void act("delete", () => deleteConversation(id), () => {
                if (isOpen) navigate("/", { replace: true });
              })
            }
          >
            {t("common:delete")}
          </button>
          <button type="button" className="menu-item" onClick={() => setMode("view")}>
            {t("common:keep")}
          </button>
        </div>
      )}
    </li>
  );
});
