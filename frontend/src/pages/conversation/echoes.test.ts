import { describe, expect, it } from "vitest";
import type { OhEvent } from "../../api/types";
import { ACTION_FIXTURES } from "../../test/fixtures/events";
import { messageAction } from "./ChatInput";
import { echoOf, unconfirmedEchoes } from "./echoes";

function userMessage(id: number, content: string): OhEvent {
  return { ...ACTION_FIXTURES.message, id, args: { ...ACTION_FIXTURES.message.args, content } };
}

describe("optimistic echo", () => {
  it("remembers the newest event id held when sending", () => {
    const echo = echoOf(messageAction("hi", ["data:image/png;base64,AA"]), [userMessage(4, "a"), userMessage(7, "b")]);
    expect(echo).toMatchObject({ text: "hi", images: ["data:image/png;base64,AA"], afterId: 7 });
    expect(echoOf({ action: "change_agent_state", args: { agent_state: "paused" } }, [])).toBeNull();
  });

  it("drops an echo once a newer user message with its text arrives", () => {
    const before = [userMessage(4, "again")];
    const echo = echoOf(messageAction("again"), before);
    if (!echo) throw new Error("no echo");
    // An older message with the same text is not its copy.
    expect(unconfirmedEchoes([echo], before)).toEqual([echo]);
    expect(unconfirmedEchoes([echo], [...before, userMessage(5, "other")])).toEqual([echo]);
    expect(unconfirmedEchoes([echo], [...before, userMessage(6, "again")])).toEqual([]);
  });

  it("matches each server copy to one echo only", () => {
    const first = echoOf(messageAction("same"), []);
    const second = echoOf(messageAction("same"), []);
    if (!first || !second) throw new Error("no echo");
    expect(unconfirmedEchoes([first, second], [userMessage(1, "same")])).toHaveLength(1);
    expect(unconfirmedEchoes([first, second], [userMessage(1, "same"), userMessage(2, "same")])).toEqual([]);
  });
});
