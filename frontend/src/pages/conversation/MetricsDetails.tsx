/** Cost, budget, tokens (with cache hits and writes) and context-window use. */
import { useTranslation } from "../../i18n/useTranslation";
import type { LlmMetrics } from "../../api/types";
import { formatCost, formatCount } from "../../format";
import { formatShare, metricsSummary } from "../../state/metricsSummary";

export function MetricsDetails({ metrics }: { metrics: LlmMetrics | null }) {
  const { t } = useTranslation("conversation");
  const m = metricsSummary(metrics);
  if (!m) return <p className="muted">{t("metrics.none")}</p>;
  return (
    <dl className="metrics-details">
      <dt>{t("metrics.cost")}</dt>
      <dd data-testid="menu-cost">{formatCost(m.cost)}</dd>
      <dt>{t("metrics.budget")}</dt>
      <dd data-testid="menu-budget">
        {m.budget === null
          ? t("metrics.noBudget")
          : t("metrics.budgetUsed", { budget: formatCost(m.budget), share: formatShare(m.budgetUsed) })}
      </dd>
      <dt>{t("metrics.promptTokens")}</dt>
      <dd data-testid="menu-prompt-tokens">{formatCount(m.promptTokens)}</dd>
      <dt>{t("metrics.completionTokens")}</dt>
      <dd data-testid="menu-completion-tokens">{formatCount(m.completionTokens)}</dd>
      <dt>{t("metrics.cacheHits")}</dt>
      <dd data-testid="menu-cache-read">{formatCount(m.cacheReadTokens)}</dd>
      <dt>{t("metrics.cacheWrites")}</dt>
      <dd data-testid="menu-cache-write">{formatCount(m.cacheWriteTokens)}</dd>
      <dt>{t("metrics.contextWindow")}</dt>
      <dd data-testid="menu-context">
        {m.contextWindow > 0 ? (
          <>
            {t("metrics.contextUse", {
              used: formatCount(m.contextTokens),
              total: formatCount(m.contextWindow),
              share: formatShare(m.contextUsed),
            })}
            <meter className="meter" min={0} max={1} value={m.contextUsed ?? 0} aria-label={t("metrics.contextUsedLabel")} />
          </>
        ) : (
          t("metrics.contextUnknown")
        )}
      </dd>
      <dt>{t("metrics.calls")}</dt>
      <dd data-testid="menu-calls">{formatCount(m.calls)}</dd>
    </dl>
  );
}
