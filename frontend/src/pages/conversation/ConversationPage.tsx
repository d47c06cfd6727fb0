import { useEffect, useMemo, useState, type CSSProperties } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { useNavigate, useParams } from "react-router-dom";
import { WorkspaceApi } from "../../api/workspace";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import type { SocketTarget } from "../../socket/conversationSocket";
import { useConversationSocket } from "../../socket/useConversationSocket";
import { ChatPanel } from "./ChatPanel";
import { ConversationHeader } from "./ConversationHeader";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { runtimeIsReady } from "../../state/statusText";
import { useDocumentTitle } from "../../hooks/useDocumentTitle";
import { socketCanConnect, useConversationInfo } from "./useConversationInfo";
import { usePauseAtIterationLimit } from "./usePauseAtIterationLimit";
import { ResizeHandle } from "./workspace/ResizeHandle";
import { storeCollapsed, storedCollapsed, storedWidth, storeWidth } from "./workspace/panelPrefs";
import { WorkspacePanel } from "./workspace/WorkspacePanel";
import "../../styles/conversation.css";
import "../../styles/chat-workspace.css";

export default function ConversationPage() {
  const { conversationId = "" } = useParams();
  const navigate = useNavigate();
  const { t } = useTranslation("conversation");
  const toast = useToast();
  const { settings, loaded } = useSettings();
  const providers = useMemo(() => providersOf(settings), [settings]);
  const info = useConversationInfo(conversationId, providers, loaded);
  const { conversation } = info;

  useEffect(() => {
    if (conversation === null) {
      toast(t("page.notFound"), "error");
      navigate("/", { replace: true });
    }
  }, [conversation, navigate, toast, t]);

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
    if (!socket.state.title) return;
    refresh();
    // The sidebar and other lists show the new title at once, not at their next poll.
    announceConversationsChanged();
  }, [socket.state.title, refresh]);

  usePauseAtIterationLimit(socket.state.status, socket.send);

  const title = socket.state.title ?? conversation?.title ?? t("page.defaultTitle");
  useDocumentTitle(conversation ? title : null);
  // On narrow screens the workspace is a sheet over the chat, closed until asked for.
  const [workspaceOpen, setWorkspaceOpen] = useState(false);
  useEffect(() => setWorkspaceOpen(false), [conversationId]);
  // On wide screens the panel beside the chat can be resized or hidden; both are remembered.
  const [workspaceWidth, setWorkspaceWidth] = useState(storedWidth);
  const [collapsed, setCollapsed] = useState(storedCollapsed);
  const resizeEnd = (width: number) => {
    setWorkspaceWidth(width);
    storeWidth(width);
  };
  const collapse = (value: boolean) => {
    setCollapsed(value);
    storeCollapsed(value);
  };
  const bodyStyle = { "--workspace-width": `${(workspaceWidth * 100).toFixed(1)}%` } as CSSProperties;

  return (
    <div className="conversation-page" data-testid="conversation-page">
      <ConversationHeader
        title={title}
        conversation={conversation}
        state={socket.state}
        onSend={socket.send}
        connected={socket.connection === "connected"}
        workspace={workspace}
        runtimeReady={runtimeIsReady(socket.state.agentState) && workspace !== null}
        onRenamed={refresh}
        lifecycle={{
          status: conversation?.status,
          pending: info.pending,
          onStop: () => void info.stop(),
          onStart: () => void info.start(),
        }}
      />
      <div
        className="conversation-body"
        data-workspace={collapsed ? "collapsed" : "open"}
        data-testid="conversation-body"
        style={bodyStyle}
      >
        <ChatPanel
          conversationId={conversationId}
          conversation={conversation}
          info={info}
          socket={socket}
          workspace={workspace}
        />
        <button
          type="button"
          className="button workspace-toggle"
          data-testid="workspace-toggle"
          aria-expanded={workspaceOpen}
          aria-controls="workspace-sheet"
          onClick={() => setWorkspaceOpen((open) => !open)}
        >
          {workspaceOpen ? t("page.backToChat") : t("page.workspace")}
        </button>
        {collapsed ? (
          <div className="workspace-rail">
            <button
              type="button"
              className="button button--small"
              data-testid="workspace-expand"
              aria-expanded={false}
              aria-controls="workspace-sheet"
              onClick={() => collapse(false)}
            >
              {t("page.showWorkspace")}
            </button>
          </div>
        ) : (
          <ResizeHandle
            width={workspaceWidth}
            onResize={setWorkspaceWidth}
            onResizeEnd={resizeEnd}
            onCollapse={() => collapse(true)}
          />
        )}
        <div id="workspace-sheet" className="workspace-sheet" data-open={workspaceOpen} data-testid="workspace-sheet">
          <WorkspacePanel
            workspace={workspace}
            state={socket.state}
            onSend={socket.send}
            onCollapse={() => collapse(true)}
          />
        </div>
      </div>
    </div>
  );
}
