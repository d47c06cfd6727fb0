import { useState, type FormEvent } from "react";
import { createSecret, listSecrets } from "../../api/settings";
import { useAsync } from "../../hooks/useAsync";
import { useToast } from "../../hooks/ToastContext";
import { useTranslation } from "../../i18n/useTranslation";
import { SecretRow } from "./SecretRow";
import { TextField } from "./SettingsField";

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Custom secrets: names and descriptions are listed, values are write-only. */
export function SecretsPanel() {
  const { t } = useTranslation("settings");
  const toast = useToast();
  const secrets = useAsync(listSecrets, []);
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onAdd(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!NAME_PATTERN.test(trimmed)) {
      setError(t("secrets.invalidName"));
      return;
    }
    if (!value) {
      setError(t("secrets.missingValue"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await createSecret({ name: trimmed, value, ...(description.trim() ? { description: description.trim() } : {}) });
      setName("");
      setValue("");
      setDescription("");
      toast(t("secrets.added", { name: trimmed }), "success");
      secrets.reload();
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setBusy(false);
    }
  }

  const list = secrets.data?.custom_secrets ?? [];
  return (
    <section id="secrets" className="card" aria-labelledby="secrets-title">
      <h2 id="secrets-title">{t("secrets.title")}</h2>
      <p className="hint">{t("secrets.intro")}</p>
      {secrets.error && (
        <p className="form-error" role="alert">
          {t("secrets.loadFailed", { error: secrets.error.message })}
        </p>
      )}
      {!secrets.loading && list.length === 0 && !secrets.error && <p className="muted">{t("secrets.empty")}</p>}
      <ul className="secret-list" data-testid="secrets-list">
        {list.map((s) => (
          <SecretRow key={s.name} secret={s} onChanged={secrets.reload} />
        ))}
      </ul>
      <form className="secret-form" onSubmit={onAdd} aria-label={t("secrets.addHeading")}>
        <h3>{t("secrets.addHeading")}</h3>
        <div className="field-row">
          <TextField
            id="secret-name"
            testId="secret-name-input"
            label={t("secrets.name")}
            autoComplete="off"
            value={name}
            onValue={setName}
          />
          <TextField
            id="secret-value"
            testId="secret-value-input"
            label={t("secrets.value")}
            type="password"
            autoComplete="off"
            value={value}
            onValue={setValue}
          />
        </div>
        <TextField
          id="secret-description"
          testId="secret-description-input"
          label={t("secrets.descriptionOptional")}
          value={description}
          onValue={setDescription}
        />
        <div className="form-actions">
          <button type="submit" className="button button--primary" data-testid="add-secret" disabled={busy}>
            {t("secrets.add")}
          </button>
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}
