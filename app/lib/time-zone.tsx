import { useRouteLoaderData } from "react-router";
import { formatDateTime } from "../../shared/format";
import type { RootData } from "../root";

/** The tenant's time zone, in which admin pages show and take times (issue 16, point 7). */
export function useTimeZone(): string {
  return useRouteLoaderData<RootData>("root")?.tenant.timeZone ?? "UTC";
}

/** A stored time as the tenant's staff read it: "Dec 1, 2026, 09:00 Europe/Berlin". */
export function StaffTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatDateTime(iso, useTimeZone())}</time>;
}

/** One time in a line of facts, " · sends Dec 1, 2026, 09:00 …"; nothing when there is none. */
export function TimeFact({ label, iso }: { label: string; iso: string | null }) {
  if (!iso) return null;
  return (
    <>
      {` · ${label} `}
      <StaffTime iso={iso} />
    </>
  );
}
