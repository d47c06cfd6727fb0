import { act, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { OhEvent } from "../../api/types";
import { conversationReducer, initialConversationState } from "../../state/conversationReducer";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../test/fixtures/events";
import { EventList, PAGE } from "./EventList";

/** A realistic mix: message, command, output, edit, observation, think. */
function conversation(count: number): OhEvent[] {
  const templates: OhEvent[] = [
    ACTION_FIXTURES.message,
    ACTION_FIXTURES.run,
    OBSERVATION_FIXTURES.run,
    ACTION_FIXTURES.edit,
    OBSERVATION_FIXTURES.edit,
    ACTION_FIXTURES.think,
    OBSERVATION_FIXTURES.read,
    OBSERVATION_FIXTURES.null,
  ];
  return Array.from({ length: count }, (_, id) => ({ ...templates[id % templates.length]!, id }) as OhEvent);
}

describe("EventList", () => {
  it("renders a 1,000-event conversation quickly and mounts only the latest page", () => {
    const state = conversationReducer(initialConversationState, { type: "received", payloads: conversation(1000) });
    const started = performance.now();
    const view = render(<EventList events={state.events} agentState="running" />);
    const firstRender = performance.now() - started;

    const rows = screen.getByTestId("event-list").querySelectorAll("article.event");
    expect(rows).toHaveLength(PAGE);
    expect(screen.getByRole("button", { name: /earlier events/ })).toBeTruthy();
    expect(firstRender).toBeLessThan(5000);

    // One more event: old rows are memoised, so the update is cheap.
    const next = conversationReducer(state, { type: "received", payloads: [{ ...ACTION_FIXTURES.message, id: 1000 }] });
    const updateStarted = performance.now();
    view.rerender(<EventList events={next.events} agentState="running" />);
    const update = performance.now() - updateStarted;
    expect(update).toBeLessThan(Math.max(250, firstRender / 2));
    expect(screen.getByTestId("event-list").querySelector('[data-event-id="1000"]')).not.toBeNull();
  });

  it("reveals earlier events on request", () => {
    const state = conversationReducer(initialConversationState, { type: "received", payloads: conversation(500) });
    render(<EventList events={state.events} agentState="finished" />);
    act(() => screen.getByRole("button", { name: /earlier events/ }).click());
    expect(screen.getByTestId("event-list").querySelector('[data-event-id="0"]')).not.toBeNull();
  });

  it("does not show null observations or plain state changes", () => {
    const events = [ACTION_FIXTURES.message, OBSERVATION_FIXTURES.null, OBSERVATION_FIXTURES.agent_state_changed];
    render(<EventList events={events} agentState="awaiting_user_input" />);
    expect(screen.getByTestId("event-list").querySelectorAll("article.event")).toHaveLength(1);
  });
});
