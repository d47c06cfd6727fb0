import { memo, useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { Link } from "react-router-dom";
import {
  deleteConversation,
  getConversation,
  renameConversation,
  startConversation,
  stopConversation,
} from "../../api/conversations";
import type { ConversationInfo } from "../../api/types";
import { formatCost, relativeTime } from "../../format";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { conversationStatusText } from "../../state/statusText";
import { LifecycleButton } from "../conversation/ConversationLifecycle";
import { startingPollDelay } from "../../state/startingPoll";

interface Props {
  conversation: ConversationInfo;
  onChanged(conversation: ConversationInfo): void;
  onDeleted(id: string): void;
}

/** The home list applies its cards' changes itself; the announcement is for the other lists. */
export const HOME_LIST = "home-list";

type Mode = "view" | "rename" | "confirm-delete";

export const ConversationCard = memo(function ConversationCard({ conversation, onChanged, onDeleted }: Props) {
  const toast = useToast();
  const { t } = useTranslation(["home", "common"]);
  const [mode, setMode] = useState<Mode>("view");
  const [title, setTitle] = useState(conversation.title);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<"stopping" | "starting" | null>(null);
  const { settings } = useSettings();
  const id = conversation.conversation_id;
  const latest = useRef(conversation);
  latest.current = conversation;

  // A starting conversation is looked at again (backing off to 3 s) until it settles.
  const status = conversation.status;
  useEffect(() => {
    if (status !== "STARTING") return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout>;
    let polls = 0;
    const look = () => {
      getConversation(id).then(
        (info) => {
          if (cancelled || !info) return;
          if (info.status === "STARTING") timer = setTimeout(look, startingPollDelay(polls++));
          else onChanged(info);
        },
        () => {
          if (!cancelled) timer = setTimeout(look, startingPollDelay(polls++));
        },
      );
    };
    timer = setTimeout(look, startingPollDelay(polls++));
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [id, status, onChanged]);

  async function changeLifecycle(action: "stop" | "start") {
    setPending(action === "stop" ? "stopping" : "starting");
    try {
      const response =
        action === "stop" ? await stopConversation(id) : await startConversation(id, providersOf(settings));
      const next = action === "stop" ? "STOPPED" : (response.conversation_status ?? "STARTING");
      onChanged({ ...latest.current, status: next, runtime_status: next === "RUNNING" ? latest.current.runtime_status : null });
      announceConversationsChanged(HOME_LIST);
    } catch (reason) {
      const error = reason instanceof Error ? reason.message : String(reason);
      toast(action === "stop" ? t("common:failed.stop", { error }) : t("common:failed.start", { error }), "error");
    } finally {
      setPending(null);
    }
  }

  async function rename(event: FormEvent) {
    event.preventDefault();
    const next = title.trim();
    if (!next || next === conversation.title) {
      setMode("view");
      return;
    }
    setBusy(true);
    try {
      await renameConversation(id, next);
      onChanged({ ...conversation, title: next });
      setMode("view");
      announceConversationsChanged(HOME_LIST);
    } catch (reason) {
      toast(t("common:failed.rename", { error: reason instanceof Error ? reason.message : String(reason) }), "error");
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    try {
      await deleteConversation(id);
      onDeleted(id);
      announceConversationsChanged(HOME_LIST);
    } catch (reason) {
      toast(t("common:failed.delete", { error: reason instanceof Error ? reason.message : String(reason) }), "error");
      setBusy(false);
    }
  }

  const cost = formatCost(conversation.accumulated_cost);
  return (
    <article className="conversation-card" data-testid="conversation-card" data-conversation-id={id}>
      {mode === "rename" ? (
        <form className="rename-form" onSubmit={rename}>
          <label htmlFor={`rename-${id}`} className="visually-hidden">
            {t("card.newTitle")}
          </label>
          <input
            id={`rename-${id}`}
            data-testid="rename-input"
            value={title}
            maxLength={200}
            autoFocus
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setMode("view")}
          />
          <button type="submit" className="button button--primary" disabled={busy} data-testid="rename-save">
            {t("common:save")}
          </button>
          <button type="button" className="button button--ghost" onClick={() => setMode("view")}>
            {t("common:cancel")}
          </button>
        </form>
      ) : (
        <Link to={`/conversations/${id}`} className="conversation-card__title" data-testid="conversation-title">
          {conversation.title}
        </Link>
      )}
      <div className="conversation-card__meta">
        <span
          className={`pill pill--${conversation.status.toLowerCase()}`}
          data-testid="conversation-status"
          data-status={conversation.status}
        >
          {conversationStatusText(conversation.status, conversation.runtime_status)}
        </span>
        {conversation.selected_repository && (
          <span className="muted" title={t("card.repository")}>
            {conversation.selected_repository}
            {conversation.selected_branch ? ` @ ${conversation.selected_branch}` : ""}
          </span>
        )}
        {conversation.last_updated_at && (
          <time className="muted" dateTime={conversation.last_updated_at} title={conversation.last_updated_at}>
            {t("card.updated", { when: relativeTime(conversation.last_updated_at) })}
          </time>
        )}
        {cost && (
          <span className="muted" data-testid="conversation-cost">
            {cost}
          </span>
        )}
      </div>
      <div className="conversation-card__actions">
        {mode === "confirm-delete" ? (
          <>
            <span>{t("common:deleteConversationQuestion")}</span>
            <button
              type="button"
              className="button button--danger"
              disabled={busy}
              onClick={() => void remove()}
              data-testid="confirm-delete"
            >
              {t("common:delete")}
            </button>
            <button type="button" className="button button--ghost" onClick={() => setMode("view")}>
              {t("common:keep")}
            </button>
          </>
        ) : (
          <>
            <Link to={`/conversations/${id}`} className="button button--ghost" aria-label={t("card.openLabel", { title: conversation.title })}>
              {t("common:open")}
            </Link>
            <LifecycleButton
              status={conversation.status}
              pending={pending}
              onStop={() => void changeLifecycle("stop")}
              onStart={() => void changeLifecycle("start")}
              title={conversation.title}
              short
            />
            <button
              type="button"
              className="button button--ghost"
              aria-label={t("card.renameLabel", { title: conversation.title })}
              data-testid="rename-conversation"
              onClick={() => {
                setTitle(conversation.title);
                setMode("rename");
              }}
            >
              {t("common:rename")}
            </button>
            <button
              type="button"
              className="button button--ghost"
              aria-label={t("card.deleteLabel", { title: conversation.title })}
              data-testid="delete-conversation"
              onClick={() => setMode("confirm-delete")}
            >
              {t("common:delete")}
            </button>
          </>
        )}
      </div>
    </article>
  );
});
