/** The parts of a campaign's report (app/routes/admin/campaign.tsx). */
import type { CampaignReport } from "../../../server/campaigns/reports";
import { StaffTime } from "../../lib/time-zone";
import type { Column } from "../ui/data-table";

/** A share of the sent messages, to one decimal. */
export function percent(part: number, whole: number) {
  return whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : "—";
}

/** The report's most clicked links. */
export const LINK_COLUMNS: Column<CampaignReport["topLinks"][number]>[] = [
  { header: "Link", className: "break-all sm:max-w-[20rem] sm:truncate", cell: (link) => link.url },
  { header: "Clicks", align: "right", cell: (link) => link.clicks },
  { header: "People", align: "right", cell: (link) => link.unique },
];

/** The report's bounces and complaints. */
export const FEEDBACK_COLUMNS: Column<CampaignReport["feedback"][number]>[] = [
  { header: "Address", className: "break-all", cell: (row) => row.email },
  {
    header: "What happened",
    cell: (row) => (row.kind === "complaint" ? "Complaint (marked as spam)" : "Hard bounce"),
  },
  { header: "When", className: "sm:whitespace-nowrap", cell: (row) => <StaffTime iso={row.at} /> },
  { header: "Report", className: "break-words sm:max-w-[24rem]", cell: (row) => row.detail ?? "—" },
];
