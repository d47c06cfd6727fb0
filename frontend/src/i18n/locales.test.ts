/**
 * Every language must have every English key, with the same {{placeholders}}.
 * The files are globbed, so a new namespace (or a new language in
 * state/languages.ts) is checked without touching this test.
 */
import { describe, expect, it } from "vitest";
import { LANGUAGES } from "../state/languages";

type Bundle = { [key: string]: string | Bundle };
const files = import.meta.glob<Bundle>("./locales/*/*.json", { eager: true, import: "default" });

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

function bundleOf(language: string, namespace: string): Bundle | undefined {
  return files[`./locales/${language}/${namespace}.json`];
}

function flatten(bundle: Bundle, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(bundle)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1] ?? "").sort();
}

/** Splits keys into plain ones and plural bases (`files_one` + `files_other` → `files`). */
function shapeOf(flat: Map<string, string>): { plain: Set<string>; plural: Set<string> } {
  const plural = new Set<string>();
  for (const key of flat.keys()) if (key.endsWith("_other")) plural.add(key.replace(PLURAL_SUFFIX, ""));
  const plain = new Set([...flat.keys()].filter((k) => !plural.has(k.replace(PLURAL_SUFFIX, ""))));
  return { plain, plural };
}

function pluralKeys(base: string, language: string): string[] {
  return new Intl.PluralRules(language).resolvedOptions().pluralCategories.map((c) => `${base}_${c}`);
}

/** What is wrong with one language's file for one namespace, as readable lines. */
export function problemsOf(english: Bundle, translated: Bundle | undefined, language: string): string[] {
  if (!translated) return ["file missing"];
  const en = flatten(english);
  const tr = flatten(translated);
  const { plain, plural } = shapeOf(en);
  const problems: string[] = [];
  const enPlaceholdersOf = (base: string) => placeholders(en.get(`${base}_other`) ?? "");
  for (const key of plain) {
    const value = tr.get(key);
    if (value === undefined) problems.push(`missing "${key}"`);
    else if (value.trim() === "") problems.push(`empty "${key}"`);
    else if (placeholders(value).join() !== placeholders(en.get(key) ?? "").join())
      problems.push(`"${key}" has {{${placeholders(value).join(", ")}}}, English has {{${placeholders(en.get(key) ?? "").join(", ")}}}`);
  }
  for (const base of plural) {
    for (const key of pluralKeys(base, language)) {
      const value = tr.get(key);
      if (value === undefined) problems.push(`missing plural form "${key}"`);
      // A form may drop {{count}} ("one file"), but must not invent another value.
      else if (placeholders(value).some((p) => !enPlaceholdersOf(base).includes(p)))
        problems.push(`"${key}" uses a placeholder English does not pass`);
    }
  }
  for (const key of tr.keys()) {
    const base = key.replace(PLURAL_SUFFIX, "");
    if (!plain.has(key) && !plural.has(base)) problems.push(`"${key}" is not in English (stale?)`);
  }
  return problems;
}

const namespaces = Object.keys(files)
  .filter((path) => path.startsWith("./locales/en/"))
  .map((path) => path.slice("./locales/en/".length, -".json".length));

describe("translations", () => {
  it("finds the English namespaces", () => {
    expect(namespaces).toEqual(expect.arrayContaining(["common", "navigation", "home", "settings", "overview"]));
  });

  for (const { code } of LANGUAGES.filter((l) => l.code !== "en")) {
    for (const namespace of namespaces) {
      it(`${code}/${namespace}.json has every English key`, () => {
        const english = bundleOf("en", namespace) ?? {};
        expect(problemsOf(english, bundleOf(code, namespace), code)).toEqual([]);
      });
    }
  }

  it("has no language folder that settings cannot select", () => {
    const folders = new Set(Object.keys(files).map((path) => path.split("/")[2]));
    expect([...folders].sort()).toEqual(LANGUAGES.map((l) => l.code).sort());
  });
});

describe("the check itself", () => {
  const english: Bundle = { title: "Hello {{name}}", files_one: "{{count}} file", files_other: "{{count}} files" };

  it("reports a missing key, a changed placeholder and a missing plural form", () => {
    const broken: Bundle = { title: "Hallo {{nom}}", files_one: "{{count}} Datei" };
    expect(problemsOf(english, broken, "de")).toEqual([
      `"title" has {{nom}}, English has {{name}}`,
      `missing plural form "files_other"`,
    ]);
    expect(problemsOf(english, { files_one: "x", files_other: "y" }, "de")).toContain(`missing "title"`);
  });

  it("asks each language for its own plural forms", () => {
    const japanese: Bundle = { title: "こんにちは {{name}}", files_other: "{{count}} 件" };
    expect(problemsOf(english, japanese, "ja")).toEqual([]);
    const arabic: Bundle = { title: "مرحبا {{name}}", files_one: "ملف", files_other: "{{count}} ملف" };
    expect(problemsOf(english, arabic, "ar")).toContain(`missing plural form "files_few"`);
  });
});
