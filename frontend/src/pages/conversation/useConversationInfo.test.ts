import { describe, expect, it } from "vitest";
import { socketCanConnect, startingPollDelay } from "./useConversationInfo";

describe("startingPollDelay", () => {
  it("starts at 0.5 s and backs off to 3 s", () => {
    const delays = Array.from({ length: 8 }, (_, polls) => startingPollDelay(polls));
    expect(delays).toEqual([500, 750, 1125, 1688, 2531, 3000, 3000, 3000]);
  });
});

describe("socketCanConnect", () => {
  it("waits for a running loop", () => {
    expect(socketCanConnect(undefined)).toBe(false);
    expect(socketCanConnect(null)).toBe(false);
    const info = { status: "RUNNING", runtime_status: "STATUS$READY" } as Parameters<typeof socketCanConnect>[0];
    expect(socketCanConnect(info)).toBe(true);
    expect(socketCanConnect({ ...info!, status: "STARTING" })).toBe(false);
    expect(socketCanConnect({ ...info!, runtime_status: "STATUS$STOPPED" })).toBe(false);
  });
});
