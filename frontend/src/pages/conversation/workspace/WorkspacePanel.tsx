/**
 * Tabs beside the chat: terminal, files, git changes, Jupyter cells, browser,
 * served apps, VS Code. The last tab chosen is remembered (panelPrefs).
 */
import { lazy, Suspense, useState, type KeyboardEvent } from "react";
import { useTranslation } from "../../../i18n/useTranslation";
import type { UserAction } from "../../../api/types";
import type { WorkspaceApi } from "../../../api/workspace";
import type { ConversationState } from "../../../state/conversationReducer";
import { runtimeIsReady } from "../../../state/statusText";
import { AppsTab } from "./AppsTab";
import { BrowserTab } from "./BrowserTab";
import { ChangesTab } from "./ChangesTab";
import { FilesTab } from "./FilesTab";
import { JupyterTab } from "./JupyterTab";
import { storedTab, storeTab } from "./panelPrefs";
import { VSCodeTab } from "./VSCodeTab";

const TerminalTab = lazy(() => import("./TerminalTab"));

// Labels are conversation:workspace.tabs.<id>.
const TABS = [
  { id: "terminal" },
  { id: "files" },
  { id: "changes" },
  { id: "jupyter" },
  { id: "browser" },
  { id: "apps" },
  { id: "vscode" },
] as const;
type TabId = (typeof TABS)[number]["id"];
const TAB_IDS: readonly TabId[] = TABS.map((tab) => tab.id);

interface Props {
  workspace: WorkspaceApi | null;
  state: ConversationState;
  onSend(action: UserAction): boolean;
  /** Hides the panel (wide screens); absent, no hide button is shown. */
  onCollapse?(): void;
}

function NotReady() {
  const { t } = useTranslation("conversation");
  return <p className="muted panel-empty">{t("workspace.notReady")}</p>;
}

export function WorkspacePanel({ workspace, state, onSend, onCollapse }: Props) {
  const { t } = useTranslation("conversation");
  const [active, setActive] = useState<TabId>(() => storedTab(TAB_IDS, "terminal"));
  // Panels stay mounted after their first visit so the terminal keeps its scrollback.
  const [visited, setVisited] = useState<ReadonlySet<TabId>>(() => new Set<TabId>([active]));
  const ready = runtimeIsReady(state.agentState) && workspace !== null;

  function select(id: TabId) {
    setActive(id);
    storeTab(id);
    setVisited((v) => (v.has(id) ? v : new Set(v).add(id)));
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = TABS.findIndex((tab) => tab.id === active);
    // The tabs run right to left in an RTL language, and the arrows follow what the eye sees.
    const forward = document.documentElement.dir === "rtl" ? "ArrowLeft" : "ArrowRight";
    const backward = forward === "ArrowRight" ? "ArrowLeft" : "ArrowRight";
    const step = event.key === forward ? 1 : event.key === backward ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = TABS[(index + step + TABS.length) % TABS.length];
    if (next) {
      select(next.id);
      document.getElementById(`tab-${next.id}`)?.focus();
    }
  }

  function panel(id: TabId) {
    switch (id) {
      case "terminal":
        return (
          <Suspense fallback={<p className="muted panel-empty">{t("workspace.loadingTerminal")}</p>}>
            <TerminalTab events={state.events} onSend={onSend} />
          </Suspense>
        );
      case "files":
        return ready && workspace ? <FilesTab workspace={workspace} changeId={state.workspaceChangeId} /> : <NotReady />;
      case "changes":
        return ready && workspace ? <ChangesTab workspace={workspace} changeId={state.workspaceChangeId} /> : <NotReady />;
      case "jupyter":
        return <JupyterTab events={state.events} />;
      case "browser":
        return <BrowserTab screenshot={state.screenshot} />;
      case "apps":
        return ready && workspace ? (
          <AppsTab workspace={workspace} changeId={state.workspaceChangeId} active={active === "apps"} />
        ) : (
          <NotReady />
        );
      case "vscode":
        return ready && workspace ? <VSCodeTab workspace={workspace} /> : <NotReady />;
    }
  }

  return (
    <section className="workspace-panel" aria-label={t("workspace.label")}>
      <div className="workspace-panel__bar">
        <div className="tabs" role="tablist" aria-label={t("workspace.views")} onKeyDown={onKeyDown}>
          {TABS.map((tab) => (
            <button
              key={tab.id}
              id={`tab-${tab.id}`}
              type="button"
              role="tab"
              className="tab"
              data-testid={`tab-${tab.id}`}
              aria-selected={active === tab.id}
              aria-controls={`panel-${tab.id}`}
              tabIndex={active === tab.id ? 0 : -1}
              onClick={() => select(tab.id)}
            >
              {t(`workspace.tabs.${tab.id}`)}
            </button>
          ))}
        </div>
        {onCollapse && (
          <button
            type="button"
            className="icon-button workspace-collapse"
            data-testid="workspace-collapse"
            aria-label={t("workspace.hide")}
            title={t("workspace.hide")}
            aria-expanded={true}
            aria-controls="workspace-sheet"
            onClick={onCollapse}
          >
            »
          </button>
        )}
      </div>
      {TABS.filter((tab) => visited.has(tab.id)).map((tab) => (
        <div
          key={tab.id}
          id={`panel-${tab.id}`}
          role="tabpanel"
          aria-labelledby={`tab-${tab.id}`}
          className="tab-panel"
          hidden={active !== tab.id}
        >
          {panel(tab.id)}
        </div>
      ))}
    </section>
  );
}
