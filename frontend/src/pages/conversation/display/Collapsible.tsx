/**
 * A native <details> whose body is only rendered once opened, so long
 * outputs cost nothing in a 1,000-event conversation until someone looks.
 */
import { useState, type ReactNode } from "react";

interface Props {
  summary: ReactNode;
  children: () => ReactNode;
  defaultOpen?: boolean;
  className?: string;
  testId?: string;
}

export function Collapsible({ summary, children, defaultOpen = false, className, testId }: Props) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <details
      className={className ? `collapsible ${className}` : "collapsible"}
      open={open}
      data-testid={testId}
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary>{summary}</summary>
      {open && <div className="collapsible__body">{children()}</div>}
    </details>
  );
}
