import type { AgentState, ConversationInfo, UserAction } from "../../api/types";
import { useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import {
  branchUrl,
  changeRequestName,
  gitRequestMessage,
  providerName,
  repositoryUrl,
  type GitRequest,
} from "../../state/gitRepository";

interface Props {
  conversation: ConversationInfo | null | undefined;
  agentState: AgentState | null;
  connected: boolean;
  onSend(action: UserAction): boolean;
}

// While the agent starts or works, a request would only queue behind its current step.
const BUSY: ReadonlySet<AgentState | null> = new Set<AgentState | null>([null, "loading", "init", "running"]);

/** The conversation's repository and branch with links to the provider, and Pull / Push / Create-PR. */
export function RepositoryBar({ conversation, agentState, connected, onSend }: Props) {
  const { settings } = useSettings();
  const toast = useToast();
  const repository = conversation?.selected_repository;
  if (!conversation || !repository) return null;
  const provider = conversation.git_provider ?? "github";
  const host = settings?.provider_tokens_set?.[provider] ?? null;
  const branch = conversation.selected_branch;
  const disabled = !connected || BUSY.has(agentState);
  const pr = changeRequestName(provider);

  function ask(kind: GitRequest) {
    const content = gitRequestMessage(kind, provider);
    if (!onSend({ action: "message", args: { content, image_urls: [], file_urls: [] } })) {
      toast("Not connected: the request was not sent.", "error");
    }
  }

  return (
    <nav className="repository-bar" aria-label="Repository" data-testid="repository-bar">
      <a
        href={repositoryUrl(provider, repository, host)}
        target="_blank"
        rel="noreferrer noopener"
        data-testid="repository-link"
        title={`Open ${repository} on ${providerName(provider)}`}
      >
        {repository}
      </a>
      {branch && (
        <a
          href={branchUrl(provider, repository, branch, host)}
          target="_blank"
          rel="noreferrer noopener"
          data-testid="branch-link"
          className="repository-bar__branch"
          title={`Open branch ${branch} on ${providerName(provider)}`}
        >
          {branch}
        </a>
      )}
      <span className="repository-bar__actions">
        <button type="button" className="button button--small button--ghost" disabled={disabled} data-testid="git-pull" title="Ask the agent to pull the latest changes" onClick={() => ask("pull")}>
          Pull
        </button>
        <button type="button" className="button button--small button--ghost" disabled={disabled} data-testid="git-push" title={`Ask the agent to push, without a ${pr}`} onClick={() => ask("push")}>
          Push
        </button>
        <button
          type="button"
          className="button button--small"
          disabled={disabled}
          data-testid="git-create-pr"
          title={`Ask the agent to push and open a ${pr}`}
          onClick={() => ask("pr")}
        >
          {provider === "gitlab" ? "Create MR" : "Create PR"}
        </button>
      </span>
    </nav>
  );
}
