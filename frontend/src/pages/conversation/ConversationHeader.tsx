import { useState, type FormEvent } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { renameConversation } from "../../api/conversations";
import type { ConversationInfo, ConversationStatus, UserAction } from "../../api/types";
import type { WorkspaceApi } from "../../api/workspace";
import { useToast } from "../../hooks/ToastContext";
import { announceConversationsChanged } from "../../state/conversationChanges";
import type { ConversationState } from "../../state/conversationReducer";
import { AgentControls } from "./AgentControls";
import { LifecycleButton } from "./ConversationLifecycle";
import { ConversationMenu } from "./ConversationMenu";
import { MetricsBar } from "./MetricsBar";
import { RepositoryBar } from "./RepositoryBar";

interface Props {
  title: string;
  conversation: ConversationInfo | null | undefined;
  state: ConversationState;
  connected: boolean;
  workspace: WorkspaceApi | null;
  runtimeReady: boolean;
  onSend(action: UserAction): boolean;
  /** The stored title changed (re-read the conversation). */
  onRenamed(): void;
  /** The conversation's own stop / start (its loop and sandbox). */
  lifecycle: {
    status: ConversationStatus | null | undefined;
    pending: "stopping" | "starting" | null;
    onStop(): void;
    onStart(): void;
  };
}

function TitleEditor({ id, title, onDone }: { id: string; title: string; onDone(saved: boolean): void }) {
  const [value, setValue] = useState(title);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const { t } = useTranslation("conversation");

  async function save(event: FormEvent) {
    event.preventDefault();
    const next = value.trim();
    if (!next || next === title) {
      onDone(false);
      return;
    }
    setBusy(true);
    try {
      await renameConversation(id, next);
      announceConversationsChanged();
      onDone(true);
    } catch (reason) {
      toast(t("header.renameFailed", { error: reason instanceof Error ? reason.message : String(reason) }), "error");
      setBusy(false);
    }
  }

  return (
    <form className="title-editor" onSubmit={save}>
      <label htmlFor="title-rename-input" className="visually-hidden">
        {t("header.titleLabel")}
      </label>
      <input
        id="title-rename-input"
        data-testid="title-rename-input"
        value={value}
        maxLength={200}
        autoFocus
        disabled={busy}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => e.key === "Escape" && onDone(false)}
      />
      <button type="submit" className="button button--small button--primary" data-testid="title-rename-save" disabled={busy}>
        {t("header.save")}
      </button>
      <button type="button" className="button button--small button--ghost" onClick={() => onDone(false)}>
        {t("header.cancel")}
      </button>
    </form>
  );
}

export function ConversationHeader({
  title,
  conversation,
  state,
  connected,
  workspace,
  runtimeReady,
  onSend,
  onRenamed,
  lifecycle,
}: Props) {
  const [renaming, setRenaming] = useState(false);
  const { t } = useTranslation("conversation");
  return (
    <header className="conversation-header">
      {renaming && conversation ? (
        <TitleEditor
          id={conversation.conversation_id}
          title={title}
          onDone={(saved) => {
            setRenaming(false);
            if (saved) onRenamed();
          }}
        />
      ) : (
        <h1
          className="conversation-header__title"
          data-testid="conversation-page-title"
          title={t("header.doubleClickToRename")}
          onDoubleClick={() => conversation && setRenaming(true)}
        >
          {title}
        </h1>
      )}
      <RepositoryBar conversation={conversation} agentState={state.agentState} connected={connected} onSend={onSend} />
      <MetricsBar metrics={state.metrics} />
      <AgentControls state={state.agentState} disabled={!connected} onSend={onSend} />
      <LifecycleButton {...lifecycle} />
      <ConversationMenu
        conversation={conversation}
        state={state}
        workspace={workspace}
        runtimeReady={runtimeReady}
        onRename={() => setRenaming(true)}
        lifecycle={lifecycle}
      />
    </header>
  );
}
