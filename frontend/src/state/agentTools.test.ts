import { describe, expect, it } from "vitest";
import { ACTION_FIXTURES } from "../test/fixtures/events";
import { agentSetup } from "./agentTools";

describe("agentSetup", () => {
  it("names the agent and its tools, each with the first sentence of its description", () => {
    const system = {
      ...ACTION_FIXTURES.system,
      args: {
        ...ACTION_FIXTURES.system.args,
        tools: [
          { type: "function", function: { name: "execute_bash", description: "Run a command. Long usage notes follow." } },
          { type: "function", function: { name: "finish" } },
          { type: "not-a-function" },
        ],
      },
    };
    expect(agentSetup([system, ACTION_FIXTURES.message])).toEqual({
      agentClass: "CodeActAgent",
      tools: [
        { name: "execute_bash", description: "Run a command." },
        { name: "finish", description: "" },
      ],
    });
  });

  it("is null before the system message is held", () => {
    expect(agentSetup([ACTION_FIXTURES.message])).toBeNull();
  });
});
