import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ActionType, ObservationType, OhEvent } from "../../../api/types";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../../test/fixtures/events";
import { ACTION_VIEWS, EventView, OBSERVATION_VIEWS } from "./EventView";

/** Text a user must see for each type (null: the type renders nothing). */
const ACTION_TEXT: Record<ActionType, string | null> = {
  message: "Write hello.py",
  system: "System prompt (CodeActAgent · v0.59.0 · 1 tools)",
  run: "$ python hello.py",
  run_ipython: "print(1 + 1)",
  browse: "http://localhost:8000",
  browse_interactive: "Interacting with the browser",
  read: "/workspace/hello.py",
  write: "/workspace/notes.txt",
  edit: "Fix the greeting",
  call_tool_mcp: "fetch",
  think: "The test fails because of an off-by-one error.",
  finish: "prints hello",
  reject: "Reason: the repository is empty",
  delegate: "Delegating to BrowsingAgent",
  recall: null,
  change_agent_state: "You set the agent to paused",
  null: null,
  condensation: "Condensed the history (10 events summarised or dropped)",
  condensation_request: "Requested a condensation of the history",
  task_tracking: "Run the tests",
};

const OBSERVATION_TEXT: Record<ObservationType, string | null> = {
  null: null,
  run: "Output of python hello.py",
  run_ipython: "Python output",
  browse: "Visited http://localhost:8000",
  read: "Read /workspace/hello.py",
  write: "Wrote /workspace/notes.txt",
  edit: "Edited /workspace/hello.py",
  delegate: "The delegate finished",
  success: "Repository cloned",
  error: "File not found: /x",
  agent_state_changed: null,
  user_rejected: "Action has been rejected by the user!",
  condense: "History condensed",
  think: "Your thought has been logged.",
  recall: "Added workspace context",
  mcp: "Result of MCP tool fetch",
  download: "Downloaded /workspace/report.pdf",
  task_tracking: "Task list (1/2 done)",
};

function renderEvent(event: OhEvent) {
  return render(<EventView event={event} />);
}

describe("EventView: every action type of events.md", () => {
  it("has a fixture and a table entry for each of the 20 action classes", () => {
    expect(Object.keys(ACTION_FIXTURES).sort()).toEqual(Object.keys(ACTION_VIEWS).sort());
    expect(Object.keys(ACTION_VIEWS)).toHaveLength(20);
  });

  for (const [type, event] of Object.entries(ACTION_FIXTURES) as [ActionType, OhEvent][]) {
    const expected = ACTION_TEXT[type];
    it(`renders "${type}"`, () => {
      const { container } = renderEvent(event);
      if (expected === null) {
        expect(container.innerHTML).toBe("");
        return;
      }
      const node = screen.getByTestId(`event-${type}`);
      expect(node.dataset.eventKind).toBe("action");
      expect(node.dataset.eventId).toBe(String(event.id));
      expect(node.textContent).toContain(expected);
    });
  }
});

describe("EventView: every observation type of events.md", () => {
  it("has a fixture and a table entry for each of the 18 observation classes", () => {
    expect(Object.keys(OBSERVATION_FIXTURES).sort()).toEqual(Object.keys(OBSERVATION_VIEWS).sort());
    expect(Object.keys(OBSERVATION_VIEWS)).toHaveLength(18);
  });

  for (const [type, event] of Object.entries(OBSERVATION_FIXTURES) as [ObservationType, OhEvent][]) {
    const expected = OBSERVATION_TEXT[type];
    it(`renders "${type}"`, () => {
      const { container } = renderEvent(event);
      if (expected === null) {
        expect(container.innerHTML).toBe("");
        return;
      }
      const node = screen.getByTestId(`event-${type}`);
      expect(node.dataset.eventKind).toBe("observation");
      expect(node.textContent).toContain(expected);
    });
  }
});

describe("EventView details", () => {
  it("renders messages as markdown with code blocks, and tells user from agent", () => {
    const agent: OhEvent = {
      ...ACTION_FIXTURES.message,
      source: "agent",
      args: { ...ACTION_FIXTURES.message.args, content: "Run this:\n\n```bash\nls -la\n```" },
    };
    renderEvent(agent);
    const node = screen.getByTestId("event-message");
    expect(node.className).toContain("event--agent");
    expect(node.querySelector("pre code")?.textContent).toContain("ls -la");
  });

  it("sanitises markdown", () => {
    const event: OhEvent = {
      ...ACTION_FIXTURES.message,
      args: { ...ACTION_FIXTURES.message.args, content: 'hi <img src=x onerror="alert(1)"><script>alert(1)</script>' },
    };
    renderEvent(event);
    const node = screen.getByTestId("event-message");
    expect(node.querySelector("script")).toBeNull();
    expect(node.querySelector("img")?.getAttribute("onerror")).toBeNull();
  });

  it("collapses command output until opened", () => {
    renderEvent(OBSERVATION_FIXTURES.run);
    const node = screen.getByTestId("event-run");
    expect(node.querySelector(".terminal-output")).toBeNull();
    const details = within(node).getByTestId("command-output") as HTMLDetailsElement;
    details.open = true;
    fireEvent(details, new Event("toggle"));
    expect(node.querySelector(".terminal-output")?.textContent).toBe("hello");
    expect(node.textContent).toContain("exit 0");
  });

  it("marks a failing command", () => {
    const failed: OhEvent = {
      ...OBSERVATION_FIXTURES.run,
      extras: { ...OBSERVATION_FIXTURES.run.extras, metadata: { ...OBSERVATION_FIXTURES.run.extras.metadata, exit_code: 2 } },
      success: false,
    };
    renderEvent(failed);
    expect(screen.getByTestId("event-run").querySelector(".pill--error")?.textContent).toBe("exit 2");
  });

  it("hides hidden commands and their output", () => {
    const hiddenRun: OhEvent = { ...ACTION_FIXTURES.run, args: { ...ACTION_FIXTURES.run.args, hidden: true } };
    const hiddenOut: OhEvent = {
      ...OBSERVATION_FIXTURES.run,
      extras: { ...OBSERVATION_FIXTURES.run.extras, hidden: true },
    };
    expect(renderEvent(hiddenRun).container.innerHTML).toBe("");
    expect(renderEvent(hiddenOut).container.innerHTML).toBe("");
  });

  it("shows file edits as a diff", () => {
    renderEvent(OBSERVATION_FIXTURES.edit);
    const diff = within(screen.getByTestId("event-edit")).getByTestId("diff-view");
    expect(diff.querySelector(".diff__row--del")?.textContent).toContain("print('hi')");
    expect(diff.querySelector(".diff__row--add")?.textContent).toContain("print('hello')");
  });

  it("folds a str_replace edit action's proposed diff until opened", () => {
    renderEvent(ACTION_FIXTURES.edit);
    const node = screen.getByTestId("event-edit");
    expect(node.querySelector(".diff")).toBeNull();
    const details = node.querySelector("details") as HTMLDetailsElement;
    details.open = true;
    fireEvent(details, new Event("toggle"));
    expect(node.querySelector(".diff__row--add")?.textContent).toContain("print('hello')");
  });

  it("falls back to the unified diff when contents are absent", () => {
    const event: OhEvent = {
      ...OBSERVATION_FIXTURES.edit,
      extras: { ...OBSERVATION_FIXTURES.edit.extras, old_content: null, new_content: null },
    };
    renderEvent(event);
    expect(screen.getByTestId("event-edit").querySelector(".unified-diff__line--add")?.textContent).toContain(
      "+print('hello')",
    );
  });

  it("shows the finish action's final message as markdown", () => {
    renderEvent(ACTION_FIXTURES.finish);
    const node = screen.getByTestId("event-finish");
    expect(node.querySelector("strong")?.textContent).toBe("hello");
    expect(node.querySelector("code")?.textContent).toBe("hello.py");
  });

  it("falls back to the finish message when there is no final thought", () => {
    const event: OhEvent = { ...ACTION_FIXTURES.finish, args: { ...ACTION_FIXTURES.finish.args, final_thought: "" } };
    renderEvent(event);
    expect(screen.getByTestId("event-finish").textContent).toContain("I wrote hello.py and ran it.");
  });

  it("shows an agent error state with its reason", () => {
    const event: OhEvent = {
      ...OBSERVATION_FIXTURES.agent_state_changed,
      extras: { agent_state: "error", reason: "litellm.AuthenticationError: bad key" },
    };
    renderEvent(event);
    expect(screen.getByTestId("event-agent_state_changed").textContent).toContain("bad key");
  });

  it("shows microagent knowledge names compactly", () => {
    const event: OhEvent = {
      ...OBSERVATION_FIXTURES.recall,
      message: "Added microagent knowledge",
      extras: {
        ...OBSERVATION_FIXTURES.recall.extras,
        recall_type: "knowledge",
        microagent_knowledge: [{ name: "github", trigger: "github", content: "Use the API" }],
      },
    };
    renderEvent(event);
    expect(screen.getByTestId("event-recall").textContent).toContain("Added microagent knowledge: github");
  });

  it("shows an action awaiting confirmation with its badge", () => {
    const event: OhEvent = {
      ...ACTION_FIXTURES.run,
      args: { ...ACTION_FIXTURES.run.args, confirmation_state: "awaiting_confirmation", security_risk: 2 },
    };
    renderEvent(event);
    const text = screen.getByTestId("event-run").textContent ?? "";
    expect(text).toContain("awaiting confirmation");
    expect(text).toContain("high risk");
  });

  it("renders an unknown type without crashing", () => {
    const event = { ...ACTION_FIXTURES.think, action: "teleport" } as unknown as OhEvent;
    renderEvent(event);
    expect(screen.getByTestId("event-unknown")).toBeTruthy();
  });
});
