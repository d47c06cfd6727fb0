import { describe, expect, it } from "vitest";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../test/fixtures/events";
import { describeAction, foldActivity, initialActivity } from "./agentActivity";

const state = (id: number | undefined, agent_state: string) => ({
  ...OBSERVATION_FIXTURES.agent_state_changed,
  id,
  extras: { agent_state, reason: "" },
});

describe("describeAction", () => {
  it("says what an agent action did, in one line", () => {
    expect(describeAction(ACTION_FIXTURES.run)).toBe(`Ran: ${ACTION_FIXTURES.run.args.command}`);
    expect(describeAction(ACTION_FIXTURES.edit)).toBe(`Edited ${ACTION_FIXTURES.edit.args.path}`);
    expect(describeAction(ACTION_FIXTURES.finish)).toBe("Finished the task");
  });

  it("skips bookkeeping and the user's own actions", () => {
    expect(describeAction(ACTION_FIXTURES.system)).toBeNull();
    expect(describeAction(ACTION_FIXTURES.change_agent_state)).toBeNull();
    expect(describeAction(ACTION_FIXTURES.message)).toBeNull(); // source user
    expect(describeAction(OBSERVATION_FIXTURES.run)).toBeNull();
  });

  it("clips long commands to one short line", () => {
    const long = { ...ACTION_FIXTURES.run, args: { ...ACTION_FIXTURES.run.args, command: `echo ${"x".repeat(200)}\nls` } };
    const text = describeAction(long) ?? "";
    expect(text.length).toBeLessThanOrEqual(86);
    expect(text.endsWith("…")).toBe(true);
    expect(text).not.toContain("\n");
  });
});

describe("foldActivity", () => {
  it("takes state, last action, step and cost from the newest events, whatever order they come in", () => {
    // The overview reads the newest page first (reverse order), then live payloads.
    const stored = [state(12, "running"), ACTION_FIXTURES.run, state(2, "loading"), ACTION_FIXTURES.message];
    const a = foldActivity(initialActivity, stored);
    expect(a.agentState).toBe("running");
    expect(a.lastAction).toBe(`Ran: ${ACTION_FIXTURES.run.args.command}`);
    expect(a.cost).toBe(0.0012);
    expect(a.step).toBe(1);
    expect(a.lastEventId).toBe(12);

    const b = foldActivity(a, [{ ...ACTION_FIXTURES.finish, id: 13 }, state(14, "finished")]);
    expect(b.agentState).toBe("finished");
    expect(b.lastAction).toBe("Finished the task");
  });

  it("counts the current task's steps: work actions after the newest user message", () => {
    const work = (id: number) => ({ ...ACTION_FIXTURES.run, id });
    const user = (id: number) => ({ ...ACTION_FIXTURES.message, id });
    let a = foldActivity(initialActivity, [work(9), work(7), user(6), work(4), user(1)]);
    expect(a.step).toBe(2);
    a = foldActivity(a, [work(9), { ...ACTION_FIXTURES.think, id: 10 }]); // a repeat is not a new step
    expect(a.step).toBe(3);
    a = foldActivity(a, [user(11)]);
    expect(a.step).toBeNull();
    a = foldActivity(a, [work(12)]);
    expect(a.step).toBe(1);
  });

  it("keeps status updates and error payloads, and ignores title updates", () => {
    let a = foldActivity(initialActivity, [
      { status_update: true, type: "info", id: "STATUS$LLM_RETRY", message: "Retrying LLM request, 1 / 3" },
    ]);
    expect(a.status).toEqual({ id: "STATUS$LLM_RETRY", type: "info", message: "Retrying LLM request, 1 / 3" });
    a = foldActivity(a, [{ status_update: true, type: "info", message: "id", conversation_title: "New" }]);
    expect(a.status?.id).toBe("STATUS$LLM_RETRY");
    a = foldActivity(a, [{ error: true, message: "Failed to create agent session: X" }]);
    expect(a.status).toEqual({ id: null, type: "error", message: "Failed to create agent session: X" });
  });

  it("takes the id-less stopped notice of a closing session as the newest state", () => {
    const a = foldActivity(initialActivity, [state(20, "running"), state(undefined, "stopped")]);
    expect(a.agentState).toBe("stopped");
  });
});
