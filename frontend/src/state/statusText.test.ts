import { describe, expect, it } from "vitest";
import { i18n } from "../i18n";
import { agentStateSentence, runtimeStatusText, startingText, statusText } from "./statusText";

const STARTING_TEXT = "Starting the sandbox…";

describe("startingText (a STARTING conversation's runtime_status)", () => {
  it("says building only when the server says an image is being built", () => {
    expect(startingText("STATUS$BUILDING_RUNTIME")).toBe("Building the sandbox image…");
    for (const id of [null, undefined, "STATUS$STARTING_RUNTIME", "STATUS$RUNTIME_STARTED", "STATUS$SETTING_UP_WORKSPACE"]) {
      expect(startingText(id)).not.toContain("Building");
    }
  });

  it("reads a plain start, or no status yet, as starting", () => {
    expect(startingText(null)).toBe(STARTING_TEXT);
    expect(startingText(undefined)).toBe("Starting the sandbox…");
    expect(startingText("STATUS$STARTING_RUNTIME")).toBe("Starting the sandbox…");
  });

  it("says which warm-pool start-up phase the server reports", () => {
    expect(startingText("STATUS$CLAIMING_WARM_RUNTIME")).toBe("Taking a sandbox that is already running…");
    expect(startingText("STATUS$RESTARTING_RUNTIME")).toBe("Restarting this conversation's sandbox…");
  });

  it("reads a status left over from the previous run as a plain start", () => {
    expect(startingText("STATUS$STOPPED")).toBe(STARTING_TEXT);
    expect(startingText("STATUS$ERROR_LLM_AUTHENTICATION")).toBe(STARTING_TEXT);
    expect(startingText("SOMETHING$NEW")).toBe(STARTING_TEXT);
  });

  it("follows the later start-up steps, and reads a ready runtime as connecting", () => {
    expect(startingText("STATUS$RUNTIME_STARTED")).toBe("Sandbox started.");
    expect(startingText("STATUS$SETTING_UP_WORKSPACE")).toBe("Setting up the repository…");
    expect(startingText("STATUS$SETTING_UP_GIT_HOOKS")).toBe("Setting up git hooks…");
    expect(startingText("STATUS$READY")).toBe("Connecting to the agent…");
  });
});

describe("statusText (a status update pushed over the socket)", () => {
  it("words runtime start-up steps from the id, whatever the message says", () => {
    expect(statusText("STATUS$STARTING_RUNTIME", "Building runtime...")).toBe("Starting the sandbox…");
    expect(statusText("STATUS$STARTING_RUNTIME", "")).toBe("Starting the sandbox…");
    expect(statusText("STATUS$BUILDING_RUNTIME", "Step 3/9 : RUN apt-get install")).toBe("Building the sandbox image…");
    expect(statusText("STATUS$SETTING_UP_WORKSPACE", "Setting up workspace...")).toBe("Setting up the repository…");
  });

  it("keeps the server's message when it says more than the id", () => {
    expect(statusText("STATUS$LLM_RETRY", "Retrying LLM request, 2 / 5")).toBe("Retrying LLM request, 2 / 5");
    expect(statusText("STATUS$ERROR", "Agent reached maximum iteration.")).toBe("Agent reached maximum iteration.");
  });

  it("falls back to our wording, then the message, then the id", () => {
    expect(statusText("STATUS$ERROR_RUNTIME_DISCONNECTED", "")).toBe("The sandbox disconnected.");
    expect(statusText("STATUS$ERROR_MEMORY", "STATUS$ERROR_MEMORY")).toBe("The sandbox ran out of memory.");
    expect(statusText(null, "plain text")).toBe("plain text");
    expect(statusText("UNKNOWN$ID", null)).toBe("UNKNOWN$ID");
    expect(statusText(null, null)).toBe("");
  });
});

describe("runtimeStatusText", () => {
  it("maps known ids and passes others through", () => {
    expect(runtimeStatusText("STATUS$STOPPED")).toBe("The sandbox is stopped.");
    expect(runtimeStatusText("X$Y")).toBe("X$Y");
    expect(runtimeStatusText(null)).toBe("");
  });
});

describe("sentences for every state", () => {
  it("has a sentence, not a raw value, for every agent state", async () => {
    const { AGENT_STATES } = await import("../api/types");
    for (const state of AGENT_STATES) {
      const sentence = agentStateSentence(state);
      expect(sentence).toMatch(/^[A-Z]/);
      expect(sentence).not.toContain("_");
    }
    expect(agentStateSentence("awaiting_user_input")).toBe("Waiting for your next message.");
  });

  it("words a listed conversation from its status and runtime status", async () => {
    const { conversationStatusText } = await import("./statusText");
    expect(conversationStatusText("STARTING", "STATUS$BUILDING_RUNTIME")).toBe("Building the sandbox image…");
    expect(conversationStatusText("STARTING", null)).toBe("Starting the sandbox…");
    expect(conversationStatusText("RUNNING", "STATUS$READY")).toBe("Running");
    expect(conversationStatusText("RUNNING", "STATUS$ERROR_MEMORY")).toBe("The sandbox ran out of memory.");
    expect(conversationStatusText("STOPPED", "STATUS$STOPPED")).toBe("Stopped");
  });
});

describe("in another language", () => {
  it("words statuses in the current UI language and keeps the server's extra detail", async () => {
    await i18n.changeLanguage("ja");
    try {
      expect(startingText("STATUS$BUILDING_RUNTIME")).toBe("サンドボックスのイメージをビルドしています…");
      expect(agentStateSentence("running")).toBe("タスクを実行しています…");
      expect(runtimeStatusText("X$Y")).toBe("X$Y");
      expect(statusText("STATUS$LLM_RETRY", "Retrying LLM request, 2 / 5")).toBe("Retrying LLM request, 2 / 5");
    } finally {
      await i18n.changeLanguage("en");
    }
  });
});
