import { describe, expect, it } from "vitest";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../../test/fixtures/events";
import { runCommand, terminalText } from "./terminalText";

describe("terminal text", () => {
  it("echoes commands after a prompt and outputs with CRLF line ends", () => {
    expect(terminalText(ACTION_FIXTURES.run)).toBe("\x1b[1;32m$\x1b[0m python hello.py\r\n");
    const output = { ...OBSERVATION_FIXTURES.run, content: "a\nb" };
    expect(terminalText(output)).toBe("a\r\nb\r\n");
  });

  it("skips hidden commands and other events", () => {
    expect(terminalText({ ...ACTION_FIXTURES.run, args: { ...ACTION_FIXTURES.run.args, hidden: true } })).toBeNull();
    expect(terminalText(ACTION_FIXTURES.message)).toBeNull();
    expect(terminalText(OBSERVATION_FIXTURES.read)).toBeNull();
  });

  it("sends the user's command as a run action", () => {
    expect(runCommand("ls -la")).toEqual({ action: "run", args: { command: "ls -la", is_input: false, hidden: false } });
  });
});
