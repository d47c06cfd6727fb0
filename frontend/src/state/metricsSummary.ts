/** The numbers the conversation menu shows, from an event's llm_metrics. */
import type { LlmMetrics } from "../api/types";

export interface MetricsSummary {
  cost: number;
  /** The per-conversation budget (max_budget_per_task), null when none is set. */
  budget: number | null;
  /** Share of the budget spent, 0…1 (null without a budget). */
  budgetUsed: number | null;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Tokens the latest LLM call used, against the model's context window. */
  contextTokens: number;
  contextWindow: number;
  /** 0…1, null when the window is unknown. */
  contextUsed: number | null;
  /** LLM calls so far: one per agent step. */
  calls: number;
}

function ratio(part: number, whole: number | null | undefined): number | null {
  return whole && whole > 0 ? Math.min(1, part / whole) : null;
}

export function metricsSummary(metrics: LlmMetrics | null): MetricsSummary | null {
  if (!metrics) return null;
  const total = metrics.accumulated_token_usage;
  const usages = metrics.token_usages ?? [];
  const last = usages[usages.length - 1];
  const contextTokens = last ? last.prompt_tokens + last.completion_tokens : 0;
  const contextWindow = last?.context_window || total?.context_window || 0;
  const budget = metrics.max_budget_per_task ?? null;
  return {
    cost: metrics.accumulated_cost,
    budget,
    budgetUsed: ratio(metrics.accumulated_cost, budget),
    promptTokens: total?.prompt_tokens ?? 0,
    completionTokens: total?.completion_tokens ?? 0,
    cacheReadTokens: total?.cache_read_tokens ?? 0,
    cacheWriteTokens: total?.cache_write_tokens ?? 0,
    contextTokens,
    contextWindow,
    contextUsed: ratio(contextTokens, contextWindow),
    calls: Math.max(metrics.response_latencies?.length ?? 0, usages.length),
  };
}

/** "42 %" */
export function formatShare(value: number | null): string {
  return value === null ? "" : `${Math.round(value * 100)} %`;
}
