import { LANGUAGES } from "../../state/languages";
import { MIN_CONDENSER_SIZE, type SettingsFormValues } from "../../state/settingsForm";

type Errors = Partial<Record<keyof SettingsFormValues, string>>;

interface Props {
  form: SettingsFormValues;
  errors: Errors;
  searchKeySet: boolean;
  set<K extends keyof SettingsFormValues>(key: K, value: SettingsFormValues[K]): void;
}

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

/** Budget, condenser size, search key, git identity and language: the rest of the settings form. */
export function MoreSettingsFields({ form, errors, searchKeySet, set }: Props) {
  const invalid = (key: keyof SettingsFormValues, id: string) => ({
    "aria-invalid": errors[key] ? true : undefined,
    "aria-describedby": errors[key] ? id : undefined,
  });
  return (
    <>
      <div className="field-row">
        <div className="field">
          <label htmlFor="settings-max-budget">Budget per conversation (USD)</label>
          <input
            id="settings-max-budget"
            data-testid="settings-max-budget"
            inputMode="decimal"
            placeholder="No limit"
            value={form.maxBudgetPerTask}
            {...invalid("maxBudgetPerTask", "settings-max-budget-error")}
            onChange={(e) => set("maxBudgetPerTask", e.target.value)}
          />
          <FieldError id="settings-max-budget-error" message={errors.maxBudgetPerTask} />
        </div>
        <div className="field">
          <label htmlFor="settings-condenser-size">Condenser max size (events)</label>
          <input
            id="settings-condenser-size"
            data-testid="settings-condenser-size"
            inputMode="numeric"
            placeholder={`Server default (at least ${MIN_CONDENSER_SIZE})`}
            value={form.condenserMaxSize}
            disabled={!form.enableDefaultCondenser}
            {...invalid("condenserMaxSize", "settings-condenser-size-error")}
            onChange={(e) => set("condenserMaxSize", e.target.value)}
          />
          <FieldError id="settings-condenser-size-error" message={errors.condenserMaxSize} />
        </div>
      </div>

      <div className="field">
        <label htmlFor="settings-search-api-key">Search API key (Tavily, optional)</label>
        <input
          id="settings-search-api-key"
          data-testid="settings-search-api-key"
          type="password"
          autoComplete="off"
          placeholder={searchKeySet ? "Set — leave blank to keep it" : "Lets the agent search the web"}
          value={form.searchApiKey}
          disabled={form.clearSearchApiKey}
          onChange={(e) => set("searchApiKey", e.target.value)}
        />
        <p className="hint" data-testid="settings-search-api-key-status">
          {searchKeySet ? "A search key is set." : "No search key is set."}
        </p>
        {searchKeySet && (
          <label className="checkbox">
            <input
              type="checkbox"
              data-testid="settings-clear-search-api-key"
              checked={form.clearSearchApiKey}
              onChange={(e) => set("clearSearchApiKey", e.target.checked)}
            />
            Remove the stored search key
          </label>
        )}
      </div>

      <div className="field-row">
        <div className="field">
          <label htmlFor="settings-git-user-name">Git user name</label>
          <input
            id="settings-git-user-name"
            data-testid="settings-git-user-name"
            autoComplete="off"
            value={form.gitUserName}
            onChange={(e) => set("gitUserName", e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="settings-git-user-email">Git user email</label>
          <input
            id="settings-git-user-email"
            data-testid="settings-git-user-email"
            type="email"
            autoComplete="off"
            value={form.gitUserEmail}
            {...invalid("gitUserEmail", "settings-git-user-email-error")}
            onChange={(e) => set("gitUserEmail", e.target.value)}
          />
          <FieldError id="settings-git-user-email-error" message={errors.gitUserEmail} />
        </div>
      </div>

      <div className="field">
        <label htmlFor="settings-language">Language</label>
        <select
          id="settings-language"
          data-testid="settings-language"
          value={form.language}
          onChange={(e) => set("language", e.target.value)}
        >
          {LANGUAGES.map((l) => (
            <option key={l.code} value={l.code} lang={l.code}>
              {l.name}
            </option>
          ))}
          {!LANGUAGES.some((l) => l.code === form.language) && <option value={form.language}>{form.language}</option>}
        </select>
      </div>
    </>
  );
}
