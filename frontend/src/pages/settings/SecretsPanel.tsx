import { useState, type FormEvent } from "react";
import { createSecret, listSecrets } from "../../api/settings";
import { useAsync } from "../../hooks/useAsync";
import { useToast } from "../../hooks/ToastContext";
import { SecretRow } from "./SecretRow";

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Custom secrets: names and descriptions are listed, values are write-only. */
export function SecretsPanel() {
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
      setError("Use letters, digits and underscores, not starting with a digit (e.g. MY_TOKEN).");
      return;
    }
    if (!value) {
      setError("Enter the secret's value.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await createSecret({ name: trimmed, value, ...(description.trim() ? { description: description.trim() } : {}) });
      setName("");
      setValue("");
      setDescription("");
      toast(`Secret ${trimmed} added`, "success");
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
      <h2 id="secrets-title">Secrets</h2>
      <p className="hint">Secrets are available to the agent as environment variables and are masked in its output.</p>
      {secrets.error && (
        <p className="form-error" role="alert">
          Could not load secrets: {secrets.error.message}
        </p>
      )}
      {!secrets.loading && list.length === 0 && !secrets.error && <p className="muted">No secrets yet.</p>}
      <ul className="secret-list" data-testid="secrets-list">
        {list.map((s) => (
          <SecretRow key={s.name} secret={s} onChanged={secrets.reload} />
        ))}
      </ul>
      <form className="secret-form" onSubmit={onAdd} aria-label="Add a secret">
        <h3>Add a secret</h3>
        <div className="field-row">
          <div className="field">
            <label htmlFor="secret-name">Name</label>
            <input
              id="secret-name"
              data-testid="secret-name-input"
              value={name}
              autoComplete="off"
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="secret-value">Value</label>
            <input
              id="secret-value"
              data-testid="secret-value-input"
              type="password"
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          </div>
        </div>
        <div className="field">
          <label htmlFor="secret-description">Description (optional)</label>
          <input
            id="secret-description"
            data-testid="secret-description-input"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </div>
        <div className="form-actions">
          <button type="submit" className="button button--primary" data-testid="add-secret" disabled={busy}>
            Add secret
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
