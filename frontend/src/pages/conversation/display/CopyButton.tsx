/** Copies a text to the clipboard and says, for a moment, whether it worked. */
import { useEffect, useState } from "react";

type Outcome = "idle" | "copied" | "failed";
const SHOWN_MS = 1500;

export function CopyButton({ text, label = "Copy message" }: { text: string; label?: string }) {
  const [outcome, setOutcome] = useState<Outcome>("idle");
  useEffect(() => {
    if (outcome === "idle") return;
    const timer = setTimeout(() => setOutcome("idle"), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [outcome]);

  async function copy() {
    try {
      // Not there outside secure contexts (plain http on another host).
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      setOutcome("copied");
    } catch {
      setOutcome("failed");
    }
  }

  return (
    <button
      type="button"
      className="icon-button copy-button"
      data-testid="copy-message"
      aria-label={label}
      title={label}
      onClick={() => void copy()}
    >
      {outcome === "copied" ? "Copied" : outcome === "failed" ? "Copy failed" : "Copy"}
      <span className="visually-hidden" role="status">
        {outcome === "copied" ? "Copied to the clipboard" : outcome === "failed" ? "Could not copy" : ""}
      </span>
    </button>
  );
}
