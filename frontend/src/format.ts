/** Small display formatters shared by the pages, in the UI's current language. */
import { i18n } from "./i18n";

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

// Intl formatters are costly to build: one of each per language, made on first use.
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
const countFormats = new Map<string, Intl.NumberFormat>();

function cached<T>(cache: Map<string, T>, make: (language: string) => T): T {
  const language = i18n.language || "en";
  let format = cache.get(language);
  if (!format) {
    format = make(language);
    cache.set(language, format);
  }
  return format;
}

/** "5 minutes ago"; "just now" under a minute; "" for a missing date. */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "";
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((then - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) {
      const format = cached(relativeFormats, (l) => new Intl.RelativeTimeFormat(l, { numeric: "auto" }));
      return format.format(Math.trunc(seconds / size), unit);
    }
  }
  return i18n.t("common:justNow");
}

const costFormats = new Map<string, Intl.NumberFormat>();
const smallCostFormats = new Map<string, Intl.NumberFormat>();

function dollars(digits: number): (language: string) => Intl.NumberFormat {
  return (language) =>
    new Intl.NumberFormat(language, {
      style: "currency",
      currency: "USD",
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
}

/** US dollars, as the server counts them, written the current language's way ("$0.05", "0,05 $").
 * Costs under a cent keep four decimals so a cheap step does not read as free. */
export function formatCost(cost: number | null | undefined): string {
  if (cost == null) return "";
  const small = cost < 0.01 && cost > 0;
  return small ? cached(smallCostFormats, dollars(4)).format(cost) : cached(costFormats, dollars(2)).format(cost);
}

export function formatCount(value: number | null | undefined): string {
  return cached(countFormats, (l) => new Intl.NumberFormat(l)).format(value ?? 0);
}

export function formatTimestamp(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(i18n.language || undefined);
}
