import { lazy, Suspense, useState, type FormEvent, type KeyboardEvent } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { Link, useNavigate } from "react-router-dom";
import { createConversation } from "../../api/conversations";
import { ApiError } from "../../api/http";
import type { CreateConversationRequest } from "../../api/types";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { withNamespace } from "../../i18n";
import { announceConversationsChanged } from "../../state/conversationChanges";
import { rememberPendingTask } from "../../state/pendingTask";
import { rememberRepository } from "../../state/recentRepositories";
import type { RepositoryChoice } from "./RepositoryPicker";

// Only users with a git token see the picker: the others do not download it.
const RepositoryPicker = lazy(() =>
  withNamespace(import("./RepositoryPicker"), "repos").then((m) => ({ default: m.RepositoryPicker })),
);

const SETTINGS_ERRORS = new Set(["CONFIGURATION$SETTINGS_NOT_FOUND", "STATUS$ERROR_LLM_AUTHENTICATION"]);

interface StartError {
  message: string;
  needsSettings: boolean;
}

export function NewConversationForm({ disabled }: { disabled: boolean }) {
  const navigate = useNavigate();
  const { t } = useTranslation("home");
  const { settings } = useSettings();
  const providers = providersOf(settings);
  const [task, setTask] = useState("");
  const [repo, setRepo] = useState<RepositoryChoice | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<StartError | null>(null);

  async function start() {
    if (busy || disabled) return;
    setBusy(true);
    setError(null);
    const body: CreateConversationRequest = {};
    if (task.trim()) body.initial_user_msg = task.trim();
    if (repo) {
      body.repository = repo.repository;
      body.git_provider = repo.provider;
      if (repo.branch) body.selected_branch = repo.branch;
    }
    try {
      const response = await createConversation(body);
      if (body.initial_user_msg) rememberPendingTask(response.conversation_id, body.initial_user_msg);
      if (repo) rememberRepository({ provider: repo.provider, repository: repo.repository });
      announceConversationsChanged();
      navigate(`/conversations/${response.conversation_id}`);
    } catch (reason) {
      const apiError = reason instanceof ApiError ? reason : null;
      setError({
        message: reason instanceof Error ? reason.message : String(reason),
        needsSettings: apiError?.msgId ? SETTINGS_ERRORS.has(apiError.msgId) : false,
      });
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void start();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void start();
    }
  }

  return (
    <section className="card new-conversation" aria-labelledby="new-conversation-title">
      <h1 id="new-conversation-title">{t("form.title")}</h1>
      <form onSubmit={onSubmit}>
        <label htmlFor="new-conversation-task" className="visually-hidden">
          {t("form.taskLabel")}
        </label>
        <textarea
          id="new-conversation-task"
          data-testid="new-conversation-task"
          className="task-input"
          placeholder={t("form.placeholder")}
          rows={4}
          value={task}
          onChange={(e) => setTask(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={disabled}
        />
        {providers.length > 0 && (
          <Suspense fallback={null}>
            <RepositoryPicker providers={providers} value={repo} onChange={setRepo} />
          </Suspense>
        )}
        <div className="form-actions">
          <button
            type="submit"
            className="button button--primary"
            data-testid="start-conversation"
            aria-label={t("form.startLabel")}
            disabled={busy || disabled}
          >
            {busy ? t("form.starting") : t("form.start")}
          </button>
          {disabled && <span className="hint">{t("form.configureFirst")}</span>}
        </div>
        {error && (
          <p className="form-error" role="alert" data-testid="start-error">
            {error.message}
            {error.needsSettings && (
              <>
                {" "}
                <Link to="/settings">{t("form.openSettings")}</Link>
              </>
            )}
          </p>
        )}
      </form>
    </section>
  );
}
