import { useId } from "react";

interface Props {
  value: string;
  models: string[];
  error?: string | undefined;
  onChange(value: string): void;
}

/**
 * A text input with the server's model list as suggestions: typing filters
 * the list, and any LiteLLM model id that is not listed is accepted too.
 */
export function ModelField({ value, models, error, onChange }: Props) {
  const listId = useId();
  return (
    <div className="field">
      <label htmlFor="settings-model">Model</label>
      <input
        id="settings-model"
        data-testid="settings-model"
        list={listId}
        autoComplete="off"
        spellCheck={false}
        placeholder="provider/model, e.g. openai/gpt-4o"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby="settings-model-hint"
        onChange={(e) => onChange(e.target.value)}
      />
      <datalist id={listId}>
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <p id="settings-model-hint" className={error ? "field-error" : "hint"}>
        {error ?? `${models.length ? `${models.length} known models; ` : ""}any LiteLLM model id works.`}
      </p>
    </div>
  );
}
