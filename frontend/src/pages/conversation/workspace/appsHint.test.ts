import { describe, expect, it } from "vitest";
import { appsHint } from "./appsHint";

describe("appsHint", () => {
  it("names the reserved ports, in order", () => {
    expect(appsHint([55012, 50431])).toBe(
      "No app is being served yet. When the agent starts a web server on port 50431 or 55012, it shows up here.",
    );
    expect(appsHint([50431])).toContain("on port 50431, it shows up here");
    expect(appsHint([3, 1, 2, 2])).toContain("on port 1, 2 or 3,");
  });

  it("still explains itself when the ports are unknown", () => {
    expect(appsHint([])).toContain("on one of the sandbox's app ports");
  });
});
