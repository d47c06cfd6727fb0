import { useEffect, useMemo } from "react";
import { useNavigate, useParams } from "react-router-dom";
import { WorkspaceApi } from "../../api/workspace";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import type { SocketTarget } from "../../socket/conversationSocket";
import { useConversationSocket } from "../../socket/useConversationSocket";
import { ChatPanel } from "./ChatPanel";
import { ConversationHeader } from "./ConversationHeader";
import { runtimeFailed } from "./StatusLine";
import { socketCanConnect, useConversationInfo } from "./useConversationInfo";
import { usePauseAtIterationLimit } from "./usePauseAtIterationLimit";
import { WorkspacePanel } from "./workspace/WorkspacePanel";
import "../../styles/conversation.css";

export default function ConversationPage() {
  const { conversationId = "" } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const { settings, loaded } = useSettings();
  const providers = useMemo(() => providersOf(settings), [settings]);
  const info = useConversationInfo(conversationId, providers, loaded);
  const { conversation } = info;

  useEffect(() => {
    if (conversation === null) {
      toast("This conversation does not exist. It may have been deleted.", "error");
      navigate("/", { replace: true });
    }
  }, [conversation, navigate, toast]);

  const canConnect = socketCanConnect(conversation);
  const url = conversation?.url ?? null;
  const sessionApiKey = conversation?.session_api_key ?? null;
  const target = useMemo<SocketTarget | null>(
    () => (canConnect ? { conversationId, url, sessionApiKey, providers } : null),
    [canConnect, conversationId, url, sessionApiKey, providers],
  );
  const workspace = useMemo(
    () => (conversation ? new WorkspaceApi(conversation) : null),
    // The routes only depend on these three fields.
    [conversation?.conversation_id, conversation?.url, conversation?.session_api_key],
  );
  // The stored history loads from the routes at once; the socket follows once the loop runs.
  const socket = useConversationSocket({ conversationId, history: workspace, socket: target, onRefused: info.refresh });

  // A title update over the socket means the stored title changed.
  const { refresh } = info;
  useEffect(() => {
    if (socket.state.title) refresh();
  }, [socket.state.title, refresh]);

  usePauseAtIterationLimit(socket.state.status, socket.send);

  return (
    <div className="conversation-page" data-testid="conversation-page">
      <ConversationHeader
        title={socket.state.title ?? conversation?.title ?? "Conversation"}
        state={socket.state}
        onSend={socket.send}
        connected={socket.connection === "connected"}
        runtimeFailed={runtimeFailed(conversation)}
        lifecycle={{
          status: conversation?.status,
          pending: info.pending,
          onStop: () => void info.stop(),
          onStart: () => void info.start(),
        }}
      />
      <div className="conversation-body">
        <ChatPanel conversation={conversation} info={info} socket={socket} workspace={workspace} />
        <WorkspacePanel workspace={workspace} state={socket.state} onSend={socket.send} />
      </div>
    </div>
  );
}
