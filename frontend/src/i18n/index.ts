/**
 * The one translation layer: i18next, read by our own hook (useTranslation.ts).
 *
 * The English the first page needs is bundled with the first JS so the first paint never
 * waits; the English of pages loaded on demand comes with them, and another language is
 * fetched when it is chosen, one dynamic import per namespace (Vite turns each JSON file
 * into its own small chunk).
 */
import i18next, { type BackendModule, type ResourceKey } from "i18next";
import { DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, directionOf, resolveLanguage } from "./languageCodes";

export const NAMESPACES = [
  "common",
  "navigation",
  "status",
  "home",
  "repos",
  "settings",
  "overview",
  "conversation",
] as const;
export type Namespace = (typeof NAMESPACES)[number];

// English of what the first page (Home, the layout, the status words on its cards) shows
// is in the first JS, so the first paint never waits. English of the pages loaded on
// demand (conversation, settings, overview, Home's repository picker and suggested tasks)
// comes with them (withNamespace), like every other language.
const english = import.meta.glob<ResourceKey>(
  ["./locales/en/common.json", "./locales/en/navigation.json", "./locales/en/home.json", "./locales/en/status.json"],
  { eager: true, import: "default" },
);
const onDemand = import.meta.glob<ResourceKey>(
  [
    "./locales/*/*.json",
    "!./locales/en/common.json",
    "!./locales/en/navigation.json",
    "!./locales/en/home.json",
    "!./locales/en/status.json",
  ],
  { import: "default" },
);

function localePath(language: string, namespace: string): string {
  return `./locales/${language}/${namespace}.json`;
}

const englishResources: Record<string, ResourceKey> = {};
for (const namespace of NAMESPACES) {
  const bundle = english[localePath(DEFAULT_LANGUAGE, namespace)];
  if (bundle) englishResources[namespace] = bundle;
}

/** Loads a namespace that is not in the first JS; a missing file falls back to English. */
const lazyLocales: BackendModule = {
  type: "backend",
  init() {},
  read(language, namespace, callback) {
    const load = onDemand[localePath(language, namespace)];
    if (!load) {
      callback(null, {});
      return;
    }
    load().then(
      (bundle) => callback(null, bundle),
      (reason: unknown) => callback(reason instanceof Error ? reason : new Error(String(reason)), false),
    );
  },
};

/** Keeps <html lang dir> in step with the UI language (screen readers, RTL layout). */
function applyToDocument(language: string): void {
  if (typeof document === "undefined") return;
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}

export const i18n = i18next.createInstance();

void i18n
  .use(lazyLocales)
  .init({
    lng: DEFAULT_LANGUAGE,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...SUPPORTED_LANGUAGES],
    // "zh-CN" must not also try "zh": only the exact stored code has files.
    load: "currentOnly",
    // A language switch fetches every namespace before it resolves: status sentences,
    // activity lines and validation texts are also worded outside components (i18n.t), and
    // they must find their language in place. One language is a few small chunks.
    ns: [...NAMESPACES],
    defaultNS: "common",
    resources: { [DEFAULT_LANGUAGE]: englishResources },
    // Part of English is bundled; the backend serves the rest and the other languages.
    partialBundledLanguages: true,
    // English is in memory, so init finishes before the first render.
    initAsync: false,
    // React already escapes text; escaping here would double-escape.
    interpolation: { escapeValue: false },
  });

i18n.on("languageChanged", applyToDocument);
applyToDocument(i18n.language);

/** Switches the UI to a stored settings value (unknown values mean English). */
export async function applyLanguage(stored: string | null | undefined): Promise<void> {
  const language = resolveLanguage(stored);
  if (i18n.language === language) return;
  await i18n.changeLanguage(language);
}

/** A lazily loaded component's module, resolved once its texts are in too, so it never
 * shows before its words (for React.lazy: `lazy(() => withNamespace(import(…), "ns"))`). */
export function withNamespace<T>(module: Promise<T>, namespace: Namespace): Promise<T> {
  return Promise.all([module, i18n.loadNamespaces(namespace)]).then(([loaded]) => loaded);
}
