/** Copies a text to the clipboard and says, for a moment, whether it worked. */
import { useEffect, useState } from "react";
import { useTranslation } from "../../../i18n/useTranslation";

type Outcome = "idle" | "copied" | "failed";
const SHOWN_MS = 1500;

export function CopyButton({ text, label: givenLabel }: { text: string; label?: string }) {
  const { t } = useTranslation("conversation");
  const label = givenLabel ?? t("copy.label");
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
      {outcome === "copied" ? t("copy.copied") : outcome === "failed" ? t("copy.failed") : t("copy.copy")}
      <span className="visually-hidden" role="status">
        {outcome === "copied" ? t("copy.copiedStatus") : outcome === "failed" ? t("copy.failedStatus") : ""}
      </span>
    </button>
  );
}
