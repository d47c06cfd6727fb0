import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage } from "./i18n";
import { formatCost, relativeTime } from "./format";

afterEach(async () => {
  await applyLanguage("en");
});

describe("formatters follow the UI language", () => {
  it("writes dollars in English with two decimals, four under a cent", () => {
    expect(formatCost(0.05)).toBe("$0.05");
    expect(formatCost(0.0012)).toBe("$0.0012");
    expect(formatCost(0)).toBe("$0.00");
    expect(formatCost(null)).toBe("");
  });

  it("writes dollars and relative times the German way once German is applied", async () => {
    await applyLanguage("de");
    const expected = new Intl.NumberFormat("de", { style: "currency", currency: "USD" }).format(1.5);
    expect(formatCost(1.5)).toBe(expected);
    expect(formatCost(1.5)).not.toBe("$1.50");
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(relativeTime("2026-01-01T10:00:00Z", now)).toBe(
      new Intl.RelativeTimeFormat("de", { numeric: "auto" }).format(-2, "hour"),
    );
  });
});
