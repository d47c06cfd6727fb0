/** Preformatted text with an optional language label. */
export function CodeBlock({ code, language, className }: { code: string; language?: string; className?: string }) {
  return (
    // Focusable, so a keyboard can scroll a long block (it scrolls on its own).
    <pre className={className ? `code-block ${className}` : "code-block"} data-language={language} tabIndex={0}>
      <code>{code}</code>
    </pre>
  );
}
