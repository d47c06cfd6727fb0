import { useMemo, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import { groupModels, joinModelId, splitModelId } from "../../state/modelCatalog";
import { SettingsField } from "./SettingsField";

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
  const { t } = useTranslation("settings");
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
      <legend>{t("model.legend")}</legend>
      <div className="field-row">
        <SettingsField id="settings-model-provider" label={t("model.provider")}>
          <select
            id="settings-model-provider"
            data-testid="settings-model-provider"
            value={group ? provider : ""}
            onChange={(e) => setChosenProvider(e.target.value)}
          >
            {!group && <option value="">{t("model.chooseProvider")}</option>}
            {catalogue.map((g) => (
              <option key={g.provider} value={g.provider}>
                {g.verified ? t("model.verifiedProvider", { provider: g.provider }) : g.provider}
              </option>
            ))}
          </select>
        </SettingsField>
        <SettingsField id="settings-model-choice" label={t("model.model")}>
          <select
            id="settings-model-choice"
            data-testid="settings-model-choice"
            value={listed ? current.name : ""}
            disabled={!group}
            onChange={(e) => e.target.value && onChange(joinModelId(provider, e.target.value))}
          >
            <option value="">{t("model.chooseModel")}</option>
            {verified.length > 0 && (
              <optgroup label={t("model.verified")}>
                {verified.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.name}
                  </option>
                ))}
              </optgroup>
            )}
            {others.length > 0 && (
              <optgroup label={verified.length ? t("model.otherModels") : t("model.models")}>
                {others.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.name}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </SettingsField>
      </div>
      <SettingsField id="settings-model" label={t("model.id")}>
        <input
          id="settings-model"
          data-testid="settings-model"
          autoComplete="off"
          spellCheck={false}
          placeholder={t("model.idPlaceholder", { example: "openai/gpt-4o" })}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby="settings-model-hint"
          onChange={(e) => {
            setChosenProvider(null);
            onChange(e.target.value);
          }}
        />
        <p id="settings-model-hint" className={error ? "field-error" : "hint"}>
          {error ?? (models.length ? t("model.knownModels", { count: models.length }) : t("model.anyModel"))}
        </p>
      </SettingsField>
    </fieldset>
  );
}
