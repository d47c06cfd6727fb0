/** Preformatted text with an optional language label. */
export function CodeBlock({ code, language, className }: { code: string; language?: string; className?: string }) {
  return (
    <pre className={className ? `code-block ${className}` : "code-block"} data-language={language}>
      <code>{code}</code>
    </pre>
  );
}
