import { TZDate } from "@date-fns/tz";

/*
 * Times in a tenant's time zone (issue 15, part 5): staff enter and read them as wall-clock times
 * there; Herald stores UTC. TZDate (@date-fns/tz) does the zone arithmetic, DST changes included.
 */

/** An IANA time zone this runtime knows ("UTC" included). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Every zone the runtime knows, UTC first: the tenant manager's choice. */
export function timeZoneChoices(): string[] {
  return ["UTC", ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC")];
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/**
 * A datetime-local value ("2026-12-01T09:00") read as a wall-clock time in `zone`, as a UTC ISO
 * string; null when it is not one. A time a DST change skips moves forward, as clocks do.
 */
export function zonedLocalToUtc(local: string, zone: string): string | null {
  const match = LOCAL.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return null;
  const date = new TZDate(year, month - 1, day, hour, minute, zone);
  if (Number.isNaN(date.getTime()) || date.getDate() !== day) return null;
  return new Date(date.getTime()).toISOString();
}

const pad = (n: number) => String(n).padStart(2, "0");

/** A UTC time as the datetime-local value of its wall-clock time in `zone`. */
export function utcToZonedLocal(iso: string, zone: string): string {
  const date = new TZDate(new Date(iso).getTime(), zone);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
