import { useMemo, useState } from "react";
import { groupModels, joinModelId, splitModelId } from "../../state/modelCatalog";

interface Props {
  value: string;
  models: string[];
  error?: string | undefined;
  onChange(value: string): void;
}

/**
 * Provider → model picker over the server's list, verified providers and
 * models first. The text box below is what gets saved, so any LiteLLM id the
 * lists do not know can still be typed in.
 */
export function ModelField({ value, models, error, onChange }: Props) {
  const catalogue = useMemo(() => groupModels(models), [models]);
  const current = splitModelId(value.trim());
  const [chosenProvider, setChosenProvider] = useState<string | null>(null);
  const provider = chosenProvider ?? current.provider;
  const group = catalogue.find((g) => g.provider === provider);
  const listed = group?.models.some((m) => m.name === current.name) && current.provider === provider;
  const verified = group?.models.filter((m) => m.verified) ?? [];
  const others = group?.models.filter((m) => !m.verified) ?? [];

  return (
    <fieldset className="model-field">
      <legend>Model</legend>
      <div className="field-row">
        <div className="field">
          <label htmlFor="settings-model-provider">Provider</label>
          <select
            id="settings-model-provider"
            data-testid="settings-model-provider"
            value={group ? provider : ""}
            onChange={(e) => setChosenProvider(e.target.value)}
          >
            {!group && <option value="">Choose a provider</option>}
            {catalogue.map((g) => (
              <option key={g.provider} value={g.provider}>
                {g.provider}
                {g.verified ? " (verified)" : ""}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="settings-model-choice">Model</label>
          <select
            id="settings-model-choice"
            data-testid="settings-model-choice"
            value={listed ? current.name : ""}
            disabled={!group}
            onChange={(e) => e.target.value && onChange(joinModelId(provider, e.target.value))}
          >
            <option value="">Choose a model (or type an id below)</option>
            {verified.length > 0 && (
              <optgroup label="Verified">
                {verified.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.name}
                  </option>
                ))}
              </optgroup>
            )}
            {others.length > 0 && (
              <optgroup label={verified.length ? "Other models" : "Models"}>
                {others.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.name}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor="settings-model">Model id (LiteLLM)</label>
        <input
          id="settings-model"
          data-testid="settings-model"
          autoComplete="off"
          spellCheck={false}
          placeholder="provider/model, e.g. openai/gpt-4o"
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby="settings-model-hint"
          onChange={(e) => {
            setChosenProvider(null);
            onChange(e.target.value);
          }}
        />
        <p id="settings-model-hint" className={error ? "field-error" : "hint"}>
          {error ?? `${models.length ? `${models.length} known models; ` : ""}any LiteLLM model id works.`}
        </p>
      </div>
    </fieldset>
  );
}
