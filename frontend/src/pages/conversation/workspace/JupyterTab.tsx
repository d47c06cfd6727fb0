/** A read-only notebook of the IPython cells the agent ran, in order, with their outputs. */
import { useMemo } from "react";
import type { OhEvent } from "../../../api/types";
import { CodeBlock } from "../display/CodeBlock";
import { jupyterCells } from "./jupyterCells";

export function JupyterTab({ events }: { events: readonly OhEvent[] }) {
  const cells = useMemo(() => jupyterCells(events), [events]);
  if (cells.length === 0) {
    return (
      <p className="muted panel-empty" data-testid="jupyter-empty">
        No Python cells yet. The cells the agent runs in IPython show up here.
      </p>
    );
  }
  return (
    <ol className="jupyter" data-testid="jupyter-cells" aria-label="IPython cells">
      {cells.map((cell, index) => (
        <li key={cell.id} className="jupyter__cell" data-testid="jupyter-cell">
          <div className="jupyter__prompt" aria-hidden="true">
            In [{index + 1}]:
          </div>
          <CodeBlock className="jupyter__code" code={cell.code} language="python" />
          <div className="jupyter__prompt" aria-hidden="true">
            Out:
          </div>
          {cell.output === null ? (
            <p className="muted jupyter__running">Running…</p>
          ) : (
            <>
              <CodeBlock className="jupyter__output terminal-output" code={cell.output.content || "(no output)"} />
              {cell.output.extras.image_urls?.map((src, i) => (
                <img key={i} className="jupyter__image" src={src} alt={`Output image ${i + 1} of cell ${index + 1}`} />
              ))}
            </>
          )}
        </li>
      ))}
    </ol>
  );
}
