import { useTranslation } from "../../i18n/useTranslation";
import { LANGUAGES } from "../../state/languages";
import { MIN_CONDENSER_SIZE, type SettingsFormValues } from "../../state/settingsForm";
import { SettingsField, StoredKeyField, TextField } from "./SettingsField";

type Errors = Partial<Record<keyof SettingsFormValues, string>>;

interface Props {
  form: SettingsFormValues;
  errors: Errors;
  searchKeySet: boolean;
  set<K extends keyof SettingsFormValues>(key: K, value: SettingsFormValues[K]): void;
}

/** Budget, condenser size, search key, git identity and language: the rest of the settings form. */
export function MoreSettingsFields({ form, errors, searchKeySet, set }: Props) {
  const { t } = useTranslation("settings");
  return (
    <>
      <div className="field-row">
        <TextField
          id="settings-max-budget"
          label={t("more.budget")}
          inputMode="decimal"
          placeholder={t("more.noLimit")}
          value={form.maxBudgetPerTask}
          error={errors.maxBudgetPerTask}
          onValue={(v) => set("maxBudgetPerTask", v)}
        />
        <TextField
          id="settings-condenser-size"
          label={t("more.condenserSize")}
          inputMode="numeric"
          placeholder={t("more.condenserSizePlaceholder", { min: MIN_CONDENSER_SIZE })}
          value={form.condenserMaxSize}
          disabled={!form.enableDefaultCondenser}
          error={errors.condenserMaxSize}
          onValue={(v) => set("condenserMaxSize", v)}
        />
      </div>

      <StoredKeyField which="search" isSet={searchKeySet} form={form} set={set} />

      <div className="field-row">
        <TextField
          id="settings-git-user-name"
          label={t("more.gitUserName")}
          autoComplete="off"
          value={form.gitUserName}
          onValue={(v) => set("gitUserName", v)}
        />
        <TextField
          id="settings-git-user-email"
          label={t("more.gitUserEmail")}
          type="email"
          autoComplete="off"
          value={form.gitUserEmail}
          error={errors.gitUserEmail}
          onValue={(v) => set("gitUserEmail", v)}
        />
      </div>

      <SettingsField id="settings-language" label={t("more.language")}>
        <select
          id="settings-language"
          data-testid="settings-language"
          value={form.language}
          onChange={(e) => set("language", e.target.value)}
        >
          {/* Each language is named in its own language, so anyone can find theirs. */}
          {LANGUAGES.map((l) => (
            <option key={l.code} value={l.code} lang={l.code}>
              {l.name}
            </option>
          ))}
          {!LANGUAGES.some((l) => l.code === form.language) && <option value={form.language}>{form.language}</option>}
        </select>
      </SettingsField>
    </>
  );
}
