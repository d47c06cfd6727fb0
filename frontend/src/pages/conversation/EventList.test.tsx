import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { OhEvent } from "../../api/types";
import { conversationReducer, initialConversationState } from "../../state/conversationReducer";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../test/fixtures/events";
import { messageAction } from "./ChatInput";
import { echoOf } from "./echoes";
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
  it("renders a 1,000-event conversation by mounting only the latest page", () => {
    // How fast is measured by the bench (tests/e2e/test_ui_performance.py), not asserted.
    const state = conversationReducer(initialConversationState, { type: "received", payloads: conversation(1000) });
    const view = render(<EventList events={state.events} agentState="running" />);

    const rows = screen.getByTestId("event-list").querySelectorAll("article.event");
    expect(rows).toHaveLength(PAGE);
    expect(screen.getByRole("button", { name: /earlier events/ })).toBeTruthy();

    // One more event: the rows already shown stay mounted (same DOM nodes), the new one is added.
    const newestShown = rows[rows.length - 1]!;
    const next = conversationReducer(state, { type: "received", payloads: [{ ...ACTION_FIXTURES.message, id: 1000 }] });
    view.rerender(<EventList events={next.events} agentState="running" />);
    const list = screen.getByTestId("event-list");
    expect(list.querySelector('[data-event-id="1000"]')).not.toBeNull();
    expect(list.contains(newestShown)).toBe(true);
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

  it("shows a sent message at once, after the events held", () => {
    const echo = echoOf(messageAction("and now the docs"), [ACTION_FIXTURES.message]);
    if (!echo) throw new Error("no echo");
    render(<EventList events={[ACTION_FIXTURES.message]} agentState="running" echoes={[echo]} />);
    const articles = Array.from(screen.getByTestId("event-list").querySelectorAll("article"));
    expect(articles.at(-1)?.getAttribute("data-testid")).toBe("message-echo");
    expect(articles.at(-1)?.textContent).toContain("and now the docs");
  });

  it("offers a way back to the newest events once scrolled up", () => {
    render(<EventList events={conversation(20)} agentState="running" />);
    const list = screen.getByTestId("event-list");
    expect(screen.queryByTestId("scroll-to-bottom")).toBeNull();
    // jsdom has no layout: give the list a size and scroll it up by hand.
    Object.defineProperty(list, "scrollHeight", { configurable: true, value: 2000 });
    Object.defineProperty(list, "clientHeight", { configurable: true, value: 500 });
    list.scrollTop = 100;
    fireEvent.scroll(list);
    fireEvent.click(screen.getByTestId("scroll-to-bottom"));
    expect(list.scrollTop).toBe(2000);
    expect(screen.queryByTestId("scroll-to-bottom")).toBeNull();
  });
});
