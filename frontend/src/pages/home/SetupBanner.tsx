import { Link } from "react-router-dom";
import { useTranslation } from "../../i18n/useTranslation";

/** First run: GET /api/settings answered 404, so no model is configured. */
export function SetupBanner() {
  const { t } = useTranslation("home");
  return (
    <section className="setup-banner" aria-labelledby="setup-title" data-testid="setup-banner">
      <h2 id="setup-title">{t("setup.title")}</h2>
      <p>{t("setup.body")}</p>
      <Link to="/settings" className="button button--primary" data-testid="setup-open-settings">
        {t("setup.openSettings")}
      </Link>
    </section>
  );
}
