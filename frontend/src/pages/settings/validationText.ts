import type { TFunction } from "i18next";
import { MIN_CONDENSER_SIZE, type SettingsFormValues } from "../../state/settingsForm";

type Errors = Partial<Record<keyof SettingsFormValues, string>>;

// validateSettingsForm has one rule per field, so the field names which message to show.
const TRANSLATED = ["llmModel", "maxIterations", "llmBaseUrl", "condenserMaxSize", "maxBudgetPerTask", "gitUserEmail"] as const;
type TranslatedField = (typeof TRANSLATED)[number];

function isTranslated(key: string): key is TranslatedField {
  return (TRANSLATED as readonly string[]).includes(key);
}

/** The form's validation messages in the UI language; a field without a key keeps its English text. */
export function localisedErrors(errors: Errors, t: TFunction<"settings">): Errors {
  const out: Errors = {};
  for (const [key, message] of Object.entries(errors) as [keyof SettingsFormValues, string][]) {
    out[key] = isTranslated(key) ? t(`validation.${key}`, { min: MIN_CONDENSER_SIZE }) : message;
  }
  return out;
}
