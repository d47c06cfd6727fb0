import { useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { useNavigate } from "react-router-dom";
import { createConversation } from "../../api/conversations";
import { getSuggestedTasks } from "../../api/git";
import type { SuggestedTask, SuggestedTaskType } from "../../api/types";
import { useAsync } from "../../hooks/useAsync";
import { useToast } from "../../hooks/ToastContext";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { rememberRepository } from "../../state/recentRepositories";

const SHOWN = 8;

const TASK_TYPES: ReadonlySet<string> = new Set<SuggestedTaskType>([
  "MERGE_CONFLICTS",
  "FAILING_CHECKS",
  "UNRESOLVED_COMMENTS",
  "OPEN_ISSUE",
  "OPEN_PR",
  "CREATE_MICROAGENT",
]);

function taskKey(t: SuggestedTask): string {
  return `${t.git_provider}:${t.repo}:${t.issue_number}:${t.task_type}`;
}

/**
 * Work waiting in the user's repositories (GET /api/user/suggested-tasks);
 * starting one sends it as `suggested_task` and the server writes the prompt.
 */
export function SuggestedTasks() {
  const navigate = useNavigate();
  const { t } = useTranslation("repos");
  // A task type this UI does not know yet is shown as the server sent it.
  const label = (type: SuggestedTaskType) => (TASK_TYPES.has(type) ? t(`tasks.type.${type}`) : type);
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
      toast(t("tasks.startFailed", { error: reason instanceof Error ? reason.message : String(reason) }), "error");
      setStarting(null);
    }
  }

  const list = (tasks.data ?? []).slice(0, SHOWN);
  return (
    <section className="card suggested-tasks" aria-labelledby="suggested-tasks-title" data-testid="suggested-tasks">
      <h2 id="suggested-tasks-title">{t("tasks.title")}</h2>
      {tasks.loading && <p role="status">{t("tasks.loading")}</p>}
      {tasks.error && <p className="muted">{t("tasks.loadFailed", { error: tasks.error.message })}</p>}
      {!tasks.loading && !tasks.error && list.length === 0 && <p className="muted">{t("tasks.none")}</p>}
      {list.length > 0 && (
        <ul>
          {list.map((task) => (
            <li key={taskKey(task)} className="suggested-task" data-testid="suggested-task">
              <span>
                <strong>{label(task.task_type)}</strong> {task.repo}#{task.issue_number}: {task.title}
              </span>
              <button
                type="button"
                className="button button--small"
                disabled={starting !== null}
                aria-label={t("tasks.startLabel", { task: label(task.task_type), repo: task.repo, number: task.issue_number })}
                onClick={() => void start(task)}
              >
                {starting === taskKey(task) ? t("tasks.starting") : t("tasks.start")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
