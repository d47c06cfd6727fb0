/**
 * Syntax highlighting for code blocks, loaded on first use so it costs the first
 * page load nothing. Only blocks whose language is named (a fenced block's
 * `language-x` class, a CodeBlock's `language`) and registered are coloured:
 * guessing the language of every block would cost more than it brings.
 */
import { useEffect, useMemo, useState } from "react";

type Highlighter = (typeof import("./highlighter"))["default"];

// Larger blocks stay plain: colouring them costs more than it helps reading.
export const MAX_HIGHLIGHT_CHARS = 50_000;

let loaded: Highlighter | null = null;
let loading: Promise<Highlighter> | null = null;

export function loadHighlighter(): Promise<Highlighter> {
  loading ??= import("./highlighter").then((module) => {
    loaded = module.default;
    return loaded;
  });
  return loading;
}

/** The highlighted HTML of `code` (escaped by highlight.js), or null when it stays plain. */
export function highlightedHtml(hljs: Highlighter, code: string, language: string | undefined): string | null {
  if (!language || code.length > MAX_HIGHLIGHT_CHARS || !hljs.getLanguage(language)) return null;
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

/** For a CodeBlock: its highlighted HTML once the highlighter is there, null until then. */
export function useHighlightedHtml(code: string, language: string | undefined): string | null {
  const [hljs, setHljs] = useState<Highlighter | null>(loaded);
  const wanted = Boolean(language) && code.length <= MAX_HIGHLIGHT_CHARS;
  useEffect(() => {
    if (!wanted || hljs) return;
    let live = true;
    loadHighlighter().then(
      (h) => live && setHljs(() => h),
      () => undefined, // a failed chunk load leaves the block plain
    );
    return () => {
      live = false;
    };
  }, [wanted, hljs]);
  return useMemo(() => (wanted && hljs ? highlightedHtml(hljs, code, language) : null), [wanted, hljs, code, language]);
}

function languageOf(element: Element): string | undefined {
  for (const name of Array.from(element.classList)) {
    if (name.startsWith("language-")) return name.slice("language-".length).toLowerCase();
  }
  return undefined;
}

/** Colours the fenced code blocks inside rendered markdown, in place. */
export function highlightCodeIn(root: HTMLElement): void {
  const blocks = Array.from(root.querySelectorAll("pre > code")).filter(
    (block) => languageOf(block) && !block.hasAttribute("data-highlighted"),
  );
  if (blocks.length === 0) return;
  loadHighlighter().then(
    (hljs) => {
      for (const block of blocks) {
        if (!block.isConnected || block.hasAttribute("data-highlighted")) continue;
        const html = highlightedHtml(hljs, block.textContent ?? "", languageOf(block));
        block.setAttribute("data-highlighted", "true");
        if (html !== null) {
          block.innerHTML = html;
          block.classList.add("hljs");
        }
      }
    },
    () => undefined,
  );
}
