import { useState, type FormEvent } from "react";
import { deleteSecret, updateSecret } from "../../api/settings";
import type { CustomSecret } from "../../api/types";
import { useToast } from "../../hooks/ToastContext";
import { useTranslation } from "../../i18n/useTranslation";

type Mode = "view" | "edit" | "confirm-delete";

export function SecretRow({ secret, onChanged }: { secret: CustomSecret; onChanged(): void }) {
  const { t } = useTranslation(["settings", "common"]);
  const toast = useToast();
  const [mode, setMode] = useState<Mode>("view");
  const [name, setName] = useState(secret.name);
  const [description, setDescription] = useState(secret.description ?? "");
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<unknown>, done: string) {
    setBusy(true);
    try {
      await action();
      toast(done, "success");
      setMode("view");
      onChanged();
    } catch (reason) {
      toast(reason instanceof Error ? reason.message : String(reason), "error");
    } finally {
      setBusy(false);
    }
  }

  function onSave(event: FormEvent) {
    event.preventDefault();
    const body = { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) };
    void run(() => updateSecret(secret.name, body), t("secrets.updated", { name: body.name }));
  }

  if (mode === "edit") {
    return (
      <li className="secret-row" data-testid="secret-row">
        <form className="secret-edit" onSubmit={onSave}>
          <label>
            {t("secrets.name")}
            <input value={name} onChange={(e) => setName(e.target.value)} data-testid="secret-edit-name" />
          </label>
          <label>
            {t("secrets.description")}
            <input value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
          <button type="submit" className="button button--primary" disabled={busy || !name.trim()}>
            {t("common:save")}
          </button>
          <button type="button" className="button button--ghost" onClick={() => setMode("view")}>
            {t("common:cancel")}
          </button>
        </form>
      </li>
    );
  }

  return (
    <li className="secret-row" data-testid="secret-row">
      <div>
        <code className="secret-name">{secret.name}</code>
        {secret.description && <span className="muted"> — {secret.description}</span>}
      </div>
      <div className="row-actions">
        {mode === "confirm-delete" ? (
          <>
            <button
              type="button"
              className="button button--danger"
              disabled={busy}
              data-testid="confirm-delete-secret"
              onClick={() => void run(() => deleteSecret(secret.name), t("secrets.deleted", { name: secret.name }))}
            >
              {t("common:delete")}
            </button>
            <button type="button" className="button button--ghost" onClick={() => setMode("view")}>
              {t("common:keep")}
            </button>
          </>
        ) : (
          <>
            <button
              type="button"
              className="button button--ghost"
              aria-label={t("secrets.editAria", { name: secret.name })}
              data-testid="edit-secret"
              onClick={() => setMode("edit")}
            >
              {t("edit")}
            </button>
            <button
              type="button"
              className="button button--ghost"
              aria-label={t("secrets.deleteAria", { name: secret.name })}
              data-testid="delete-secret"
              onClick={() => setMode("confirm-delete")}
            >
              {t("common:delete")}
            </button>
          </>
        )}
      </div>
    </li>
  );
}
