/** The IPython cells the agent ran, paired with their outputs (by the observation's `cause`). */
import type { IPythonRunCellAction, IPythonRunCellObservation, OhEvent } from "../../../api/types";

export interface JupyterCell {
  /** The action's event id. */
  id: number;
  code: string;
  /** Null while the cell still runs (or was never answered). */
  output: IPythonRunCellObservation | null;
}

function isCellAction(event: OhEvent): event is IPythonRunCellAction {
  return "action" in event && event.action === "run_ipython";
}

function isCellOutput(event: OhEvent): event is IPythonRunCellObservation {
  return "observation" in event && event.observation === "run_ipython";
}

export function jupyterCells(events: readonly OhEvent[]): JupyterCell[] {
  const cells: JupyterCell[] = [];
  const byId = new Map<number, JupyterCell>();
  for (const event of events) {
    if (isCellAction(event) && event.id !== undefined) {
      const cell: JupyterCell = { id: event.id, code: event.args.code, output: null };
      cells.push(cell);
      byId.set(event.id, cell);
    } else if (isCellOutput(event)) {
      const cell = event.cause !== undefined ? byId.get(event.cause) : undefined;
      if (cell) cell.output = event;
    }
  }
  return cells;
}
