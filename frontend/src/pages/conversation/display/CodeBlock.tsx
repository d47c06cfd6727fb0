import { useHighlightedHtml } from "./highlight";

/** Preformatted text with an optional language label; coloured when the language is known. */
export function CodeBlock({ code, language, className }: { code: string; language?: string; className?: string }) {
  const html = useHighlightedHtml(code, language);
  return (
    // Focusable, so a keyboard can scroll a long block (it scrolls on its own).
    <pre className={className ? `code-block ${className}` : "code-block"} data-language={language} tabIndex={0}>
      {html === null ? <code>{code}</code> : <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />}
    </pre>
  );
}
