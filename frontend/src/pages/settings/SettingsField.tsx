import type { InputHTMLAttributes, ReactNode } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import type { SettingsFormValues } from "../../state/settingsForm";

/** The aria wiring that ties a control to its error paragraph (`<id>-error`) while there is one. */
export function describedByError(id: string, error: string | undefined) {
  return {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : undefined,
  } as const;
}

interface FieldProps {
  /** The control's id: the label points at it and the error paragraph is `<id>-error`. */
  id: string;
  label: string;
  error?: string | undefined;
  /** The control itself, plus anything shown under it (hints, a checkbox). */
  children: ReactNode;
}

/** One labelled settings control with its validation message, so every form lays fields out alike. */
export function SettingsField({ id, label, error, children }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

type InputAttributes = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange" | "children">;

interface TextFieldProps extends InputAttributes {
  id: string;
  /** Defaults to the id. */
  testId?: string;
  label: string;
  error?: string | undefined;
  value: string;
  onValue(value: string): void;
  /** Shown under the input (hints, a checkbox). */
  children?: ReactNode;
}

/** A labelled text input (any type) with its validation message wired to it. */
export function TextField({ id, testId, label, error, value, onValue, children, ...input }: TextFieldProps) {
  return (
    <SettingsField id={id} label={label} error={error}>
      <input
        {...input}
        id={id}
        data-testid={testId ?? id}
        value={value}
        {...describedByError(id, error)}
        onChange={(e) => onValue(e.target.value)}
      />
      {children}
    </SettingsField>
  );
}

interface CheckboxProps {
  testId: string;
  checked: boolean;
  onChecked(checked: boolean): void;
  children: ReactNode;
}

/** A checkbox with its text as the label, the way every settings toggle reads. */
export function CheckboxField({ testId, checked, onChecked, children }: CheckboxProps) {
  return (
    <label className="checkbox">
      <input type="checkbox" data-testid={testId} checked={checked} onChange={(e) => onChecked(e.target.checked)} />
      {children}
    </label>
  );
}

/** The write-only keys the settings form stores: where each lives in the form and its texts. */
const STORED_KEYS = {
  llm: { id: "settings-api-key", clearTestId: "settings-clear-api-key", value: "llmApiKey", clear: "clearApiKey" },
  search: {
    id: "settings-search-api-key",
    clearTestId: "settings-clear-search-api-key",
    value: "searchApiKey",
    clear: "clearSearchApiKey",
  },
} as const;

interface StoredKeyProps {
  which: keyof typeof STORED_KEYS;
  isSet: boolean;
  form: SettingsFormValues;
  set<K extends keyof SettingsFormValues>(key: K, value: SettingsFormValues[K]): void;
}

/**
 * A secret the server stores (the LLM key, the search key): the value is
 * never shown, only whether one is set; blank keeps it, the box removes it.
 */
export function StoredKeyField({ which, isSet, form, set }: StoredKeyProps) {
  const { t } = useTranslation("settings");
  const key = STORED_KEYS[which];
  return (
    <TextField
      id={key.id}
      label={t(`storedKey.${which}.label`)}
      type="password"
      autoComplete="off"
      placeholder={isSet ? t("keepPlaceholder") : t(`storedKey.${which}.placeholder`)}
      value={form[key.value]}
      disabled={form[key.clear]}
      onValue={(v) => set(key.value, v)}
    >
      <p className="hint" data-testid={`${key.id}-status`}>
        {isSet ? t(`storedKey.${which}.set`) : t(`storedKey.${which}.unset`)}
      </p>
      {isSet && (
        <CheckboxField testId={key.clearTestId} checked={form[key.clear]} onChecked={(v) => set(key.clear, v)}>
          {t(`storedKey.${which}.clear`)}
        </CheckboxField>
      )}
    </TextField>
  );
}
