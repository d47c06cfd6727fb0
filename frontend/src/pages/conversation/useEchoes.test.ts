import { act, renderHook } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { OhEvent } from "../../api/types";
import type { NoticeItem } from "../../state/conversationReducer";
import { ACTION_FIXTURES } from "../../test/fixtures/events";
import { messageAction } from "./ChatInput";
import { useEchoes } from "./useEchoes";

interface HookProps {
  events: readonly OhEvent[];
  notices: readonly NoticeItem[];
}

function setup(sendResult = true) {
  const send = vi.fn(() => sendResult);
  const hook = renderHook(({ events, notices }: HookProps) => useEchoes("c1", events, notices, send), {
    initialProps: { events: [ACTION_FIXTURES.message] as readonly OhEvent[], notices: [] as readonly NoticeItem[] },
  });
  return { send, hook };
}

describe("useEchoes", () => {
  it("echoes a sent message until the server's copy arrives", () => {
    const { send, hook } = setup();
    act(() => {
      expect(hook.result.current.sendMessage(messageAction("next step"))).toBe(true);
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(hook.result.current.echoes.map((e) => e.text)).toEqual(["next step"]);
    const copy = { ...ACTION_FIXTURES.message, id: 99, args: { ...ACTION_FIXTURES.message.args, content: "next step" } };
    hook.rerender({ events: [ACTION_FIXTURES.message, copy], notices: [] });
    expect(hook.result.current.echoes).toEqual([]);
  });

  it("echoes nothing the socket did not take, and drops echoes on a server error", () => {
    const refused = setup(false);
    act(() => void refused.hook.result.current.sendMessage(messageAction("lost")));
    expect(refused.hook.result.current.echoes).toEqual([]);

    const { hook } = setup();
    act(() => void hook.result.current.sendMessage(messageAction("with an image", ["data:image/png;base64,AA"])));
    expect(hook.result.current.echoes).toHaveLength(1);
    hook.rerender({ events: [ACTION_FIXTURES.message], notices: [{ key: 1, message: "Model does not support image upload" }] });
    expect(hook.result.current.echoes).toEqual([]);
  });
});
