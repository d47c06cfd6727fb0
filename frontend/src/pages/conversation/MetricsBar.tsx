import type { LlmMetrics } from "../../api/types";
import { formatCost, formatCount } from "../../format";

/** Cost and token totals from the latest event that carried llm_metrics. */
export function MetricsBar({ metrics }: { metrics: LlmMetrics | null }) {
  if (!metrics) return null;
  const usage = metrics.accumulated_token_usage;
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  return (
    <dl className="metrics" aria-label="LLM usage">
      <div>
        <dt>Cost</dt>
        <dd data-testid="metrics-cost">{formatCost(metrics.accumulated_cost)}</dd>
      </div>
      <div title={`${formatCount(prompt)} prompt + ${formatCount(completion)} completion tokens`}>
        <dt>Tokens</dt>
        <dd data-testid="metrics-tokens">{formatCount(prompt + completion)}</dd>
      </div>
    </dl>
  );
}
