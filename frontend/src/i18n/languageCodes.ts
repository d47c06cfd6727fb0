import { LANGUAGES } from "../state/languages";

/** Every code a user can store; the UI has a translation for each. */
export const SUPPORTED_LANGUAGES: readonly string[] = LANGUAGES.map((l) => l.code);
export const DEFAULT_LANGUAGE = "en";

/** Languages written right to left (of the ones we ship, Arabic). */
const RTL_LANGUAGES = new Set(["ar"]);

/** The code the UI will use for a stored value: unknown or empty values fall back to English. */
export function resolveLanguage(stored: string | null | undefined): string {
  return stored && SUPPORTED_LANGUAGES.includes(stored) ? stored : DEFAULT_LANGUAGE;
}

export function directionOf(code: string): "rtl" | "ltr" {
  return RTL_LANGUAGES.has(code) ? "rtl" : "ltr";
}
