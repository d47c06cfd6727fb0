import { useTranslation } from "../../i18n/useTranslation";
import type { LlmMetrics } from "../../api/types";
import { formatCost, formatCount } from "../../format";

/** Cost and token totals from the latest event that carried llm_metrics. */
export function MetricsBar({ metrics }: { metrics: LlmMetrics | null }) {
  const { t } = useTranslation("conversation");
  if (!metrics) return null;
  const usage = metrics.accumulated_token_usage;
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  return (
    <dl className="metrics" aria-label={t("metrics.label")}>
      <div>
        <dt>{t("metrics.cost")}</dt>
        <dd data-testid="metrics-cost">{formatCost(metrics.accumulated_cost)}</dd>
      </div>
      <div title={t("metrics.tokensTitle", { prompt: formatCount(prompt), completion: formatCount(completion) })}>
        <dt>{t("metrics.tokens")}</dt>
        <dd data-testid="metrics-tokens">{formatCount(prompt + completion)}</dd>
      </div>
    </dl>
  );
}
