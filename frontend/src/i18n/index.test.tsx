import { act, render, screen } from "@testing-library/react";
import { Trans, useTranslation } from "./useTranslation";
import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage, i18n, NAMESPACES } from "./index";
import { directionOf, resolveLanguage, SUPPORTED_LANGUAGES } from "./languageCodes";

function Probe() {
  const { t } = useTranslation("navigation");
  return <p data-testid="probe">{t("settings")}</p>;
}

afterEach(async () => {
  await act(() => applyLanguage("en"));
});

describe("translation layer", () => {
  it("starts in English, left to right, without waiting for anything", () => {
    render(<Probe />);
    expect(screen.getByTestId("probe").textContent).toBe("Settings");
    expect(document.documentElement.lang).toBe("en");
    expect(document.documentElement.dir).toBe("ltr");
  });

  it("switches a rendered component to Japanese and back", async () => {
    render(<Probe />);
    await act(() => applyLanguage("ja"));
    expect(screen.getByTestId("probe").textContent).toBe("設定");
    expect(document.documentElement.lang).toBe("ja");
    await act(() => applyLanguage("en"));
    expect(screen.getByTestId("probe").textContent).toBe("Settings");
  });

  it("turns the page right to left for Arabic", async () => {
    render(<Probe />);
    await act(() => applyLanguage("ar"));
    expect(document.documentElement.dir).toBe("rtl");
    expect(document.documentElement.lang).toBe("ar");
    expect(screen.getByTestId("probe").textContent).toBe("الإعدادات");
  });

  it("loads a language only when it is chosen, and then all of its namespaces", async () => {
    // Test files may share the instance, so the untouched languages are found, not assumed.
    const untouched = SUPPORTED_LANGUAGES.filter((code) => !i18n.hasResourceBundle(code, "navigation"));
    const chosen = untouched[0];
    const others = untouched.slice(1);
    expect(chosen).toBeDefined();
    expect(others.length).toBeGreaterThan(0);
    await act(() => applyLanguage(chosen));
    // Text worded outside components (i18n.t) finds its language in place at once.
    for (const ns of NAMESPACES) expect(i18n.hasResourceBundle(chosen ?? "", ns)).toBe(true);
    for (const code of others) expect(i18n.hasResourceBundle(code, "navigation")).toBe(false);
  });

  it("re-renders a component when its language arrives, and keeps the hook's namespaces", async () => {
    function Two() {
      const { t } = useTranslation(["home", "common"]);
      return <p data-testid="two">{`${t("list.title")} / ${t("common:save")}`}</p>;
    }
    render(<Two />);
    expect(screen.getByTestId("two").textContent).toBe("Conversations / Save");
    await act(() => applyLanguage("fr"));
    expect(screen.getByTestId("two").textContent).toBe("Conversations / Enregistrer");
  });

  it("places a marked element where the translation puts it", () => {
    render(
      <p data-testid="marked">
        <Trans text="avant <b>milieu</b> après" b={<strong />} />
      </p>,
    );
    const marked = screen.getByTestId("marked");
    expect(marked.textContent).toBe("avant milieu après");
    expect(marked.querySelector("strong")?.textContent).toBe("milieu");
    render(<p data-testid="plain"><Trans text="no marker" b={<strong />} /></p>);
    expect(screen.getByTestId("plain").textContent).toBe("no marker");
  });

  it("treats an unknown or empty stored value as English", () => {
    expect(resolveLanguage("xx")).toBe("en");
    expect(resolveLanguage("")).toBe("en");
    expect(resolveLanguage(null)).toBe("en");
    expect(resolveLanguage("zh-TW")).toBe("zh-TW");
    expect(directionOf("ar")).toBe("rtl");
    expect(directionOf("uk")).toBe("ltr");
  });
});
