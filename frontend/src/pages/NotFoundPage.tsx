import { useTranslation } from "../i18n/useTranslation";
import { Link } from "react-router-dom";

export function NotFoundPage() {
  const { t } = useTranslation("navigation");
  return (
    <section className="page page--narrow">
      <h1>{t("notFound.title")}</h1>
      <p>
        <Link to="/">{t("notFound.back")}</Link>
      </p>
    </section>
  );
}
