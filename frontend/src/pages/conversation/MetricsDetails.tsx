/** Cost, budget, tokens (with cache hits and writes) and context-window use. */
import type { LlmMetrics } from "../../api/types";
import { formatCost, formatCount } from "../../format";
import { formatShare, metricsSummary } from "../../state/metricsSummary";

export function MetricsDetails({ metrics }: { metrics: LlmMetrics | null }) {
  const m = metricsSummary(metrics);
  if (!m) return <p className="muted">No LLM calls yet.</p>;
  return (
    <dl className="metrics-details">
      <dt>Cost</dt>
      <dd data-testid="menu-cost">{formatCost(m.cost)}</dd>
      <dt>Budget</dt>
      <dd data-testid="menu-budget">
        {m.budget === null ? "No budget set" : `${formatCost(m.budget)} (${formatShare(m.budgetUsed)} used)`}
      </dd>
      <dt>Prompt tokens</dt>
      <dd data-testid="menu-prompt-tokens">{formatCount(m.promptTokens)}</dd>
      <dt>Completion tokens</dt>
      <dd data-testid="menu-completion-tokens">{formatCount(m.completionTokens)}</dd>
      <dt>Cache hits</dt>
      <dd data-testid="menu-cache-read">{formatCount(m.cacheReadTokens)}</dd>
      <dt>Cache writes</dt>
      <dd data-testid="menu-cache-write">{formatCount(m.cacheWriteTokens)}</dd>
      <dt>Context window</dt>
      <dd data-testid="menu-context">
        {m.contextWindow > 0 ? (
          <>
            {formatCount(m.contextTokens)} of {formatCount(m.contextWindow)} ({formatShare(m.contextUsed)})
            <meter className="meter" min={0} max={1} value={m.contextUsed ?? 0} aria-label="Context window used" />
          </>
        ) : (
          "Unknown for this model"
        )}
      </dd>
      <dt>LLM calls</dt>
      <dd data-testid="menu-calls">{formatCount(m.calls)}</dd>
    </dl>
  );
}
