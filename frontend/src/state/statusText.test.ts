import { describe, expect, it } from "vitest";
import { runtimeStatusText, STARTING_TEXT, startingText, statusText } from "./statusText";

describe("startingText (a STARTING conversation's runtime_status)", () => {
  it("says building only when the server says an image is being built", () => {
    expect(startingText("STATUS$BUILDING_RUNTIME")).toBe("Building the runtime…");
    for (const id of [null, undefined, "STATUS$STARTING_RUNTIME", "STATUS$RUNTIME_STARTED", "STATUS$SETTING_UP_WORKSPACE"]) {
      expect(startingText(id)).not.toContain("Building");
    }
  });

  it("reads a plain start, or no status yet, as starting", () => {
    expect(startingText(null)).toBe(STARTING_TEXT);
    expect(startingText(undefined)).toBe("Starting the runtime…");
    expect(startingText("STATUS$STARTING_RUNTIME")).toBe("Starting the runtime…");
  });

  it("reads a status left over from the previous run as a plain start", () => {
    expect(startingText("STATUS$STOPPED")).toBe(STARTING_TEXT);
    expect(startingText("STATUS$ERROR_LLM_AUTHENTICATION")).toBe(STARTING_TEXT);
    expect(startingText("SOMETHING$NEW")).toBe(STARTING_TEXT);
  });

  it("follows the later start-up steps, and reads a ready runtime as connecting", () => {
    expect(startingText("STATUS$RUNTIME_STARTED")).toBe("Runtime started.");
    expect(startingText("STATUS$SETTING_UP_WORKSPACE")).toBe("Setting up the workspace…");
    expect(startingText("STATUS$SETTING_UP_GIT_HOOKS")).toBe("Setting up git hooks…");
    expect(startingText("STATUS$READY")).toBe("Connecting…");
  });
});

describe("statusText (a status update pushed over the socket)", () => {
  it("words runtime start-up steps from the id, whatever the message says", () => {
    expect(statusText("STATUS$STARTING_RUNTIME", "Building runtime...")).toBe("Starting the runtime…");
    expect(statusText("STATUS$STARTING_RUNTIME", "")).toBe("Starting the runtime…");
    expect(statusText("STATUS$BUILDING_RUNTIME", "Step 3/9 : RUN apt-get install")).toBe("Building the runtime…");
    expect(statusText("STATUS$SETTING_UP_WORKSPACE", "Setting up workspace...")).toBe("Setting up the workspace…");
  });

  it("keeps the server's message when it says more than the id", () => {
    expect(statusText("STATUS$LLM_RETRY", "Retrying LLM request, 2 / 5")).toBe("Retrying LLM request, 2 / 5");
    expect(statusText("STATUS$ERROR", "Agent reached maximum iteration.")).toBe("Agent reached maximum iteration.");
  });

  it("falls back to our wording, then the message, then the id", () => {
    expect(statusText("STATUS$ERROR_RUNTIME_DISCONNECTED", "")).toBe("The runtime disconnected.");
    expect(statusText("STATUS$ERROR_MEMORY", "STATUS$ERROR_MEMORY")).toBe("The runtime ran out of memory.");
    expect(statusText(null, "plain text")).toBe("plain text");
    expect(statusText("UNKNOWN$ID", null)).toBe("UNKNOWN$ID");
    expect(statusText(null, null)).toBe("");
  });
});

describe("runtimeStatusText", () => {
  it("maps known ids and passes others through", () => {
    expect(runtimeStatusText("STATUS$STOPPED")).toBe("The runtime is stopped.");
    expect(runtimeStatusText("X$Y")).toBe("X$Y");
    expect(runtimeStatusText(null)).toBe("");
  });
});
