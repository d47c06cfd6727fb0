/**
 * The conversation menu: rename, export, what the conversation cost, the
 * agent's tools and microagents, stop and delete, in one popover opened from
 * the header.
 */
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { useNavigate } from "react-router-dom";
import { deleteConversation } from "../../api/conversations";
import { exportTrajectory } from "../../api/exportTrajectory";
import type { ConversationInfo, ConversationStatus, MicroagentInfo } from "../../api/types";
import type { WorkspaceApi } from "../../api/workspace";
import { useToast } from "../../hooks/ToastContext";
import { agentSetup } from "../../state/agentTools";
import { announceConversationsChanged } from "../../state/conversationChanges";
import type { ConversationState } from "../../state/conversationReducer";
import { MetricsDetails } from "./MetricsDetails";

interface Props {
  conversation: ConversationInfo | null | undefined;
  state: ConversationState;
  workspace: WorkspaceApi | null;
  /** The agent is past loading: the microagents route can answer. */
  runtimeReady: boolean;
  onRename(): void;
  lifecycle: {
    status: ConversationStatus | null | undefined;
    pending: "stopping" | "starting" | null;
    onStop(): void;
  };
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function Microagents({ workspace, ready }: { workspace: WorkspaceApi | null; ready: boolean }) {
  const [items, setItems] = useState<MicroagentInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { t } = useTranslation("conversation");
  useEffect(() => {
    if (!workspace || !ready) return;
    const controller = new AbortController();
    workspace.microagents(controller.signal).then(
      (list) => setItems(list),
      (reason: unknown) => {
        if (!controller.signal.aborted) setError(errorText(reason));
      },
    );
    return () => controller.abort();
  }, [workspace, ready]);

  if (!ready) return <p className="muted">{t("menu.microagentsLater")}</p>;
  if (error) return <p className="form-error">{t("menu.microagentsFailed", { error })}</p>;
  if (items === null) return <p className="muted">{t("menu.loading")}</p>;
  if (items.length === 0) return <p className="muted">{t("menu.noMicroagents")}</p>;
  return (
    <ul className="menu-list" data-testid="menu-microagents-list">
      {items.map((m) => (
        <li key={`${m.type}:${m.name}`} data-testid="menu-microagent">
          <span className="menu-list__name">{m.name}</span>
          <span className="pill">{m.type}</span>
          {m.triggers.length > 0 && <span className="muted menu-list__detail">{t("menu.triggers", { triggers: m.triggers.join(", ") })}</span>}
        </li>
      ))}
    </ul>
  );
}

export function ConversationMenu({ conversation, state, workspace, runtimeReady, onRename, lifecycle }: Props) {
  const { t } = useTranslation("conversation");
  const [open, setOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const navigate = useNavigate();
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const setup = useMemo(() => (open ? agentSetup(state.events) : null), [open, state.events]);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  useEffect(() => {
    if (!open) setConfirmDelete(false);
  }, [open]);

  async function onExport() {
    if (!conversation) return;
    try {
      await exportTrajectory(conversation);
    } catch (reason) {
      toast(t("menu.exportFailed", { error: errorText(reason) }), "error");
    }
  }

  async function onDelete() {
    if (!conversation) return;
    setBusy(true);
    try {
      await deleteConversation(conversation.conversation_id);
      announceConversationsChanged();
      toast(t("menu.deleted"), "success");
      navigate("/", { replace: true });
    } catch (reason) {
      toast(t("menu.deleteFailed", { error: errorText(reason) }), "error");
      setBusy(false);
    }
  }

  const canStop = lifecycle.status === "RUNNING" || lifecycle.status === "STARTING";
  return (
    <div className="menu" ref={root}>
      <button
        ref={button}
        type="button"
        className="button button--ghost"
        data-testid="conversation-menu-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
      >
        {t("menu.details")}
      </button>
      {open && (
        <div id={panelId} className="menu__panel" role="dialog" aria-label={t("menu.dialog")} data-testid="conversation-menu">
          <div className="menu__actions">
            <button
              type="button"
              className="button button--small"
              data-testid="menu-rename"
              onClick={() => {
                setOpen(false);
                onRename();
              }}
            >
              {t("menu.rename")}
            </button>
            <button
              type="button"
              className="button button--small"
              data-testid="menu-export"
              disabled={!conversation}
              onClick={() => void onExport()}
            >
              {t("menu.export")}
            </button>
            {canStop && (
              <button
                type="button"
                className="button button--small"
                data-testid="menu-stop"
                disabled={lifecycle.pending !== null}
                onClick={() => {
                  setOpen(false);
                  lifecycle.onStop();
                }}
              >
                {t("menu.stop")}
              </button>
            )}
            {confirmDelete ? (
              <span className="menu__confirm">
                <span>{t("menu.deleteQuestion")}</span>
                <button
                  type="button"
                  className="button button--small button--danger"
                  data-testid="menu-confirm-delete"
                  disabled={busy}
                  onClick={() => void onDelete()}
                >
                  {t("menu.delete")}
                </button>
                <button type="button" className="button button--small button--ghost" onClick={() => setConfirmDelete(false)}>
                  {t("menu.keep")}
                </button>
              </span>
            ) : (
              <button
                type="button"
                className="button button--small button--danger"
                data-testid="menu-delete"
                onClick={() => setConfirmDelete(true)}
              >
                {t("menu.delete")}
              </button>
            )}
          </div>

          <section aria-labelledby={`${panelId}-usage`} data-testid="menu-metrics">
            <h2 id={`${panelId}-usage`} className="menu__heading">
              {t("menu.usage")}
            </h2>
            <MetricsDetails metrics={state.metrics} />
          </section>

          <section aria-labelledby={`${panelId}-tools`} data-testid="menu-tools">
            <h2 id={`${panelId}-tools`} className="menu__heading">
              {t("menu.tools")}
            </h2>
            {setup ? (
              <>
                {setup.agentClass && <p className="menu__agent">{setup.agentClass}</p>}
                <ul className="menu-list">
                  {setup.tools.map((tool) => (
                    <li key={tool.name} data-testid="menu-tool">
                      <code className="menu-list__name">{tool.name}</code>
                      {tool.description && <span className="muted menu-list__detail">{tool.description}</span>}
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <p className="muted">{t("menu.toolsLater")}</p>
            )}
          </section>

          <section aria-labelledby={`${panelId}-microagents`} data-testid="menu-microagents">
            <h2 id={`${panelId}-microagents`} className="menu__heading">
              {t("menu.microagents")}
            </h2>
            <Microagents workspace={workspace} ready={runtimeReady} />
          </section>
        </div>
      )}
    </div>
  );
}
