import { describe, expect, it } from "vitest";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../../test/fixtures/events";
import { jupyterCells } from "./jupyterCells";

describe("jupyterCells", () => {
  it("pairs each IPython cell with its output and keeps a running one open", () => {
    const action = { ...ACTION_FIXTURES.run_ipython, id: 9 };
    const output = { ...OBSERVATION_FIXTURES.run_ipython, cause: 9 };
    const second = { ...ACTION_FIXTURES.run_ipython, id: 12, args: { ...ACTION_FIXTURES.run_ipython.args, code: "x = 2" } };
    const cells = jupyterCells([ACTION_FIXTURES.run, action, output, second]);
    expect(cells.map((c) => [c.id, c.code, c.output?.content ?? null])).toEqual([
      [9, ACTION_FIXTURES.run_ipython.args.code, OBSERVATION_FIXTURES.run_ipython.content],
      [12, "x = 2", null],
    ]);
  });
});
