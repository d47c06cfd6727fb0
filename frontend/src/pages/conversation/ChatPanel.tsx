import { useEffect, useMemo } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import type { ConversationInfo } from "../../api/types";
import type { WorkspaceApi } from "../../api/workspace";
import type { ConversationSocketApi } from "../../socket/useConversationSocket";
import { forgetPendingTask, hasUserMessage, pendingTask } from "../../state/pendingTask";
import { ChatInput } from "./ChatInput";
import { ConfirmationBar } from "./ConfirmationBar";
import { EventList } from "./EventList";
import { StatusLine } from "./StatusLine";
import { useEchoes } from "./useEchoes";
import type { ConversationInfoState } from "./useConversationInfo";

interface Props {
  conversationId: string;
  conversation: ConversationInfo | null | undefined;
  info: ConversationInfoState;
  socket: ConversationSocketApi;
  workspace: WorkspaceApi | null;
}

export function ChatPanel({ conversationId, conversation, info, socket, workspace }: Props) {
  const { state } = socket;
  const { t } = useTranslation("conversation");
  const connected = socket.connection === "connected";
  const delivered = useMemo(() => hasUserMessage(state.events), [state.events]);
  const pending = delivered ? null : pendingTask(conversationId);
  useEffect(() => {
    if (delivered) forgetPendingTask(conversationId);
  }, [delivered, conversationId]);

  // Messages from the chat box show at once; their server copies replace them.
  const { echoes, sendMessage } = useEchoes(conversationId, state.events, state.notices, socket.send);
  return (
    <section className="chat-panel" aria-label={t("page.chat")}>
      <EventList
        events={state.events}
        agentState={state.agentState}
        loading={socket.historyLoading}
        pendingMessage={pending}
        echoes={echoes}
      />
      <div className="chat-footer">
        {state.notices.map((n) => (
          <div key={n.key} className="notice notice--error" role="alert" data-testid="chat-notice">
            <span>{n.message}</span>
            <button
              type="button"
              className="icon-button"
              aria-label={t("chat.dismiss")}
              onClick={() => socket.dismissNotice(n.key)}
            >
              ×
            </button>
          </div>
        ))}
        <StatusLine conversation={conversation} info={info} socket={socket} />
        {state.agentState === "awaiting_user_confirmation" && (
          <ConfirmationBar events={state.events} disabled={!connected} onSend={socket.send} />
        )}
        <ChatInput disabled={!connected} workspace={workspace} onSend={sendMessage} />
      </div>
    </section>
  );
}
