/** Markdown rendered by marked and sanitised by DOMPurify; links open in a new tab, fenced code is coloured. */
import DOMPurify from "dompurify";
import { marked } from "marked";
import { memo, useLayoutEffect, useMemo, useRef } from "react";
import { highlightCodeIn } from "./highlight";

let hookInstalled = false;
function installLinkHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    // A code block scrolls on its own; focusable, a keyboard can scroll it too.
    if (node instanceof Element && node.tagName === "PRE") node.setAttribute("tabindex", "0");
    if (node instanceof Element && node.tagName === "A" && node.getAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
}

// Remounted rows (a conversation reopened, earlier events revealed) reuse their HTML.
const cache = new Map<string, string>();
const CACHE_SIZE = 500;

export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  installLinkHook();
  const html = DOMPurify.sanitize(marked(text, { async: false, gfm: true, breaks: true }));
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, html);
  return html;
}

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const root = useRef<HTMLDivElement>(null);
  // Fenced blocks are coloured in place once the HTML is in the page.
  useLayoutEffect(() => {
    if (root.current) highlightCodeIn(root.current);
  }, [html]);
  return (
    // dir="auto": a message's own text runs in its own direction, whatever the UI language's.
    <div
      ref={root}
      dir="auto"
      className={className ? `markdown ${className}` : "markdown"}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
});
