import { describe, expect, it } from "vitest";
import type { LlmMetrics } from "../api/types";
import { formatShare, metricsSummary } from "./metricsSummary";

const usage = (prompt: number, completion: number, window: number) => ({
  model: "m",
  prompt_tokens: prompt,
  completion_tokens: completion,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  context_window: window,
  per_turn_token: prompt + completion,
  response_id: "r",
});

const METRICS: LlmMetrics = {
  accumulated_cost: 0.5,
  max_budget_per_task: 2,
  accumulated_token_usage: { ...usage(3000, 200, 10000), cache_read_tokens: 1500, cache_write_tokens: 700 },
  costs: [],
  response_latencies: [
    { model: "m", latency: 1, response_id: "a" },
    { model: "m", latency: 1, response_id: "b" },
  ],
  token_usages: [usage(1000, 100, 10000), usage(2000, 100, 10000)],
};

describe("metricsSummary", () => {
  it("adds cache hits and writes, budget share and the latest call's context-window use", () => {
    const m = metricsSummary(METRICS)!;
    expect(m.cost).toBe(0.5);
    expect(m.budget).toBe(2);
    expect(m.budgetUsed).toBe(0.25);
    expect([m.promptTokens, m.completionTokens, m.cacheReadTokens, m.cacheWriteTokens]).toEqual([3000, 200, 1500, 700]);
    expect(m.contextTokens).toBe(2100);
    expect(m.contextWindow).toBe(10000);
    expect(formatShare(m.contextUsed)).toBe("21 %");
    expect(m.calls).toBe(2);
  });

  it("has no budget share or context use when they are unknown", () => {
    const m = metricsSummary({ ...METRICS, max_budget_per_task: null, token_usages: [], accumulated_token_usage: undefined })!;
    expect(m.budgetUsed).toBeNull();
    expect(m.contextUsed).toBeNull();
    expect(formatShare(m.contextUsed)).toBe("");
    expect(metricsSummary(null)).toBeNull();
  });
});
