/** Line diffs: computed from two texts, or a unified diff rendered as given. */
import { diffLines } from "diff";
import { memo, useMemo } from "react";

type Kind = "add" | "del" | "same" | "skip";
interface Row {
  kind: Kind;
  oldNo: number | null;
  newNo: number | null;
  text: string;
}

const CONTEXT = 3;

function splitLines(value: string): string[] {
  const lines = value.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Rows of a line diff, with long unchanged runs folded to `CONTEXT` lines each side. */
export function diffRows(original: string, modified: string): Row[] {
  const rows: Row[] = [];
  let oldNo = 1;
  let newNo = 1;
  const parts = diffLines(original, modified);
  parts.forEach((part, index) => {
    const lines = splitLines(part.value);
    if (part.added) {
      for (const text of lines) rows.push({ kind: "add", oldNo: null, newNo: newNo++, text });
    } else if (part.removed) {
      for (const text of lines) rows.push({ kind: "del", oldNo: oldNo++, newNo: null, text });
    } else {
      const keepHead = index === 0 ? 0 : CONTEXT;
      const keepTail = index === parts.length - 1 ? 0 : CONTEXT;
      if (lines.length > keepHead + keepTail + 1) {
        lines.slice(0, keepHead).forEach((text, i) => rows.push({ kind: "same", oldNo: oldNo + i, newNo: newNo + i, text }));
        const skipped = lines.length - keepHead - keepTail;
        rows.push({ kind: "skip", oldNo: null, newNo: null, text: `${skipped} unchanged line${skipped === 1 ? "" : "s"}` });
        const tailStart = lines.length - keepTail;
        lines.slice(tailStart).forEach((text, i) =>
          rows.push({ kind: "same", oldNo: oldNo + tailStart + i, newNo: newNo + tailStart + i, text }),
        );
      } else {
        lines.forEach((text, i) => rows.push({ kind: "same", oldNo: oldNo + i, newNo: newNo + i, text }));
      }
      oldNo += lines.length;
      newNo += lines.length;
    }
  });
  return rows;
}

const MARK: Record<Kind, string> = { add: "+", del: "-", same: " ", skip: "⋯" };

export const DiffView = memo(function DiffView({
  original,
  modified,
  label,
}: {
  original: string;
  modified: string;
  label?: string;
}) {
  const rows = useMemo(() => diffRows(original, modified), [original, modified]);
  const changed = rows.some((r) => r.kind === "add" || r.kind === "del");
  if (!changed) return <p className="muted">No changes.</p>;
  return (
    <table className="diff" aria-label={label ?? "Diff"} data-testid="diff-view">
      <tbody>
        {rows.map((row, i) => (
          <tr key={i} className={`diff__row diff__row--${row.kind}`}>
            <td className="diff__no">{row.oldNo ?? ""}</td>
            <td className="diff__no">{row.newNo ?? ""}</td>
            <td className="diff__mark" aria-hidden="true">
              {MARK[row.kind]}
            </td>
            <td className="diff__text">
              {row.kind === "add" && <span className="visually-hidden">added: </span>}
              {row.kind === "del" && <span className="visually-hidden">removed: </span>}
              {row.text}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
});

/** A unified diff string (e.g. FileEditObservation.diff), coloured per line. */
export const UnifiedDiff = memo(function UnifiedDiff({ diff }: { diff: string }) {
  const lines = useMemo(() => splitLines(diff), [diff]);
  return (
    <pre className="unified-diff" data-testid="diff-view">
      {lines.map((line, i) => {
        const kind = line.startsWith("@@")
          ? "hunk"
          : line.startsWith("+++") || line.startsWith("---")
            ? "file"
            : line.startsWith("+")
              ? "add"
              : line.startsWith("-")
                ? "del"
                : "same";
        return (
          <span key={i} className={`unified-diff__line unified-diff__line--${kind}`}>
            {line}
            {"\n"}
          </span>
        );
      })}
    </pre>
  );
});
