/**
 * The languages a user can choose in settings, stored in Settings.language.
 * Codes are the ones 0.59 stores; each name is written in its own language so
 * a reader finds theirs whatever the UI currently speaks.
 */
export const LANGUAGES: readonly { code: string; name: string }[] = [
  { code: "en", name: "English" },
  { code: "ja", name: "日本語" },
  { code: "zh-CN", name: "简体中文" },
  { code: "zh-TW", name: "繁體中文" },
  { code: "ko-KR", name: "한국어" },
  { code: "no", name: "Norsk" },
  { code: "ar", name: "العربية" },
  { code: "de", name: "Deutsch" },
  { code: "fr", name: "Français" },
  { code: "it", name: "Italiano" },
  { code: "pt", name: "Português" },
  { code: "es", name: "Español" },
  { code: "tr", name: "Türkçe" },
  { code: "uk", name: "Українська" },
];
