const DATE = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

/** "November 22, 2026": in UTC, so the server and the browser render the same text. */
export function formatDate(iso: string): string {
  return DATE.format(new Date(iso));
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
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
