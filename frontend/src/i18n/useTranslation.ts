/**
 * The hook every component translates with, over the one i18next instance.
 *
 * Ours rather than react-i18next's (~9 kB gzip of the first JS for what is needed here):
 * `t` is i18next's own fixed-namespace function, typed from the English files
 * (`i18next.d.ts`); a component re-renders when the language changes or when one of its
 * namespaces arrives; a namespace not loaded yet for the current language is fetched on
 * first use while the component keeps showing the previous text (it never suspends).
 */
import { cloneElement, createElement, Fragment, useEffect, useMemo, useSyncExternalStore, type ReactElement } from "react";
import type { TFunction } from "i18next";
import { i18n, type Namespace } from "./index";

type Namespaces = Namespace | readonly Namespace[];

function asList(ns: Namespaces): readonly Namespace[] {
  return typeof ns === "string" ? [ns] : ns;
}

function subscribe(onChange: () => void): () => void {
  i18n.on("languageChanged", onChange);
  i18n.on("loaded", onChange);
  i18n.store.on("added", onChange);
  return () => {
    i18n.off("languageChanged", onChange);
    i18n.off("loaded", onChange);
    i18n.store.off("added", onChange);
  };
}

/** What the rendered text depends on: the language and which of the namespaces are in. */
function snapshotOf(list: readonly Namespace[]): string {
  const loaded = list.map((ns) => (i18n.hasLoadedNamespace(ns) ? "1" : "0")).join("");
  return `${i18n.language}:${loaded}`;
}

export function useTranslation<const N extends Namespaces = "common">(
  ns: N = "common" as N,
): { t: TFunction<N>; i18n: typeof i18n } {
  const key = asList(ns).join(",");
  // The list is rebuilt from its key: callers pass literals, a new array each render.
  const list = useMemo(() => key.split(",") as Namespace[], [key]);
  const snapshot = useSyncExternalStore(subscribe, () => snapshotOf(list));
  useEffect(() => {
    // Also registers the namespaces with i18next, so a later language switch fetches
    // them before it resolves (applyLanguage then finds every text in place).
    void i18n.loadNamespaces(list);
  }, [list, snapshot]);
  const t = useMemo(
    () => i18n.getFixedT(null, list) as unknown as TFunction<N>,
    // The snapshot is a dependency on purpose: a new `t` makes memoised children re-render.
    [list, snapshot],
  );
  return { t, i18n };
}

interface TransProps {
  /** A translated sentence with one element marked `<b>…</b>` (the language decides where). */
  text: string;
  /** What the marked part is rendered in, e.g. `<strong />`. */
  b: ReactElement;
}

/**
 * Puts an element inside a translated sentence without building the sentence from pieces:
 * the translation says where the element goes (`"set to <b>{{state}}</b>"`).
 */
export function Trans({ text, b }: TransProps): ReactElement {
  const match = /^([\s\S]*?)<b>([\s\S]*?)<\/b>([\s\S]*)$/.exec(text);
  if (!match) return createElement(Fragment, null, text);
  const [, before, inner, after] = match;
  return createElement(Fragment, null, before, cloneElement(b, undefined, inner), after);
}
