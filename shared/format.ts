const LONG_DATE = { year: "numeric", month: "long", day: "numeric" } as const;
const DATE = new Intl.DateTimeFormat("en-US", { ...LONG_DATE, timeZone: "UTC" });

// A page shows the same dates on every render (50 comments, a list of newsletters), and
// Intl's format is the dearest step of rendering them: texts are kept, up to a bound.
const formattedDates = new Map<string, string>();
const MAX_FORMATTED_DATES = 2_000;

/** Long dates in other zones than UTC (a tenant's, in its mail), by zone. */
const zonedDates = new Map<string, Intl.DateTimeFormat>();

function longDateIn(zone: string): Intl.DateTimeFormat {
  let format = zonedDates.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", { ...LONG_DATE, timeZone: zone });
    } catch {
      format = DATE; // a zone this runtime does not know: UTC, as pages show it
    }
    zonedDates.set(zone, format);
  }
  return format;
}

/**
 * "November 22, 2026": in UTC, so the server and the browser render the same text; a mail says it
 * in the tenant's `zone`.
 */
export function formatDate(iso: string, zone = "UTC"): string {
  const key = zone === "UTC" ? iso : `${zone}\u0000${iso}`;
  let text = formattedDates.get(key);
  if (text === undefined) {
    text = (zone === "UTC" ? DATE : longDateIn(zone)).format(new Date(iso));
    if (formattedDates.size >= MAX_FORMATTED_DATES) formattedDates.clear();
    formattedDates.set(key, text);
  }
  return text;
}

// One formatter: toLocaleString("en-US") builds a new one on every call (a hundredth of the
// dashboard's CPU in a profile, two counts per card).
const COUNT = new Intl.NumberFormat("en-US");

/** A count with thousands separators: 12,345. */
export function formatCount(count: number): string {
  // Whole counts (all of Herald's) get their commas from a pattern: Intl costs a few microseconds
  // a call, a view count is on every newsletter page, and two are on every dashboard card.
  return Number.isSafeInteger(count) ? String(count).replace(THOUSANDS, ",") : COUNT.format(count);
}

/** Each place in a run of digits with a multiple of three digits after it. */
const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function dateTimeFormat(zone: string): Intl.DateTimeFormat {
  let format = dateTimeFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZone: zone,
    });
    dateTimeFormats.set(zone, format);
  }
  return format;
}

/**
 * "Nov 22, 2026, 14:05 UTC" or "Dec 1, 2026, 09:00 Europe/Berlin": a stored time as staff read it,
 * in the tenant's time zone (app/lib/time-zone.ts), the same text on the server and the browser.
 */
export function formatDateTime(iso: string, zone = "UTC"): string {
  return `${dateTimeFormat(zone).format(new Date(iso))} ${zone.replaceAll("_", " ")}`;
}
