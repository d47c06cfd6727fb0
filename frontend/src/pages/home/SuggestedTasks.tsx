import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { createConversation } from "../../api/conversations";
import { getSuggestedTasks } from "../../api/git";
import type { SuggestedTask, SuggestedTaskType } from "../../api/types";
import { useAsync } from "../../hooks/useAsync";
import { useToast } from "../../hooks/ToastContext";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { rememberRepository } from "../../state/recentRepositories";

const SHOWN = 8;

const TASK_LABELS: Record<SuggestedTaskType, string> = {
  MERGE_CONFLICTS: "Resolve merge conflicts",
  FAILING_CHECKS: "Fix failing checks",
  UNRESOLVED_COMMENTS: "Address review comments",
  OPEN_ISSUE: "Work on issue",
  OPEN_PR: "Continue pull request",
  CREATE_MICROAGENT: "Add a microagent",
};

function taskKey(t: SuggestedTask): string {
  return `${t.git_provider}:${t.repo}:${t.issue_number}:${t.task_type}`;
}

/**
 * Work waiting in the user's repositories (GET /api/user/suggested-tasks);
 * starting one sends it as `suggested_task` and the server writes the prompt.
 */
export function SuggestedTasks() {
  const navigate = useNavigate();
  const toast = useToast();
  const tasks = useAsync(getSuggestedTasks, []);
  const [starting, setStarting] = useState<string | null>(null);

  async function start(task: SuggestedTask) {
    setStarting(taskKey(task));
    try {
      const response = await createConversation({ repository: task.repo, git_provider: task.git_provider, suggested_task: task });
      rememberRepository({ provider: task.git_provider, repository: task.repo });
      announceConversationsChanged();
      navigate(`/conversations/${response.conversation_id}`);
    } catch (reason) {
      toast(`Could not start the task: ${reason instanceof Error ? reason.message : String(reason)}`, "error");
      setStarting(null);
    }
  }

  const list = (tasks.data ?? []).slice(0, SHOWN);
  return (
    <section className="card suggested-tasks" aria-labelledby="suggested-tasks-title" data-testid="suggested-tasks">
      <h2 id="suggested-tasks-title">Suggested tasks</h2>
      {tasks.loading && <p role="status">Looking for open work in your repositories…</p>}
      {tasks.error && <p className="muted">Could not load suggested tasks: {tasks.error.message}</p>}
      {!tasks.loading && !tasks.error && list.length === 0 && <p className="muted">Nothing waiting in your repositories.</p>}
      {list.length > 0 && (
        <ul>
          {list.map((t) => (
            <li key={taskKey(t)} className="suggested-task" data-testid="suggested-task">
              <span>
                <strong>{TASK_LABELS[t.task_type] ?? t.task_type}</strong> {t.repo}#{t.issue_number}: {t.title}
              </span>
              <button
                type="button"
                className="button button--small"
                disabled={starting !== null}
                aria-label={`Start: ${TASK_LABELS[t.task_type] ?? t.task_type} ${t.repo}#${t.issue_number}`}
                onClick={() => void start(t)}
              >
                {starting === taskKey(t) ? "Starting…" : "Start"}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
