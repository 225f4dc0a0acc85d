/** A campaign's A/B test in its report (issue 35, target 5): every arm, the winner and why, the rest. */
import { Form } from "react-router";
import type { AbTestReport } from "../../../server/campaigns/reports";
import { formatCount, plural } from "../../../shared/format";
import { AB_WINNER_BY, variantLetter } from "../../../shared/schemas/campaign";
import { StaffTime } from "../../lib/time-zone";
import { AdminSection } from "../admin-header";
import { type Column, DataTable } from "../ui/data-table";
import { outlineButtonClass } from "../ui/form";
import { percent } from "./campaign-report";

type Arm = AbTestReport["arms"][number];

/** An A/B test's wait in words: "4 hours", "2 days". */
export const waitText = (minutes: number) =>
  minutes % 1440 === 0 ? plural(minutes / 1440, "day") : plural(Math.round(minutes / 60), "hour");

function columns(winner: number | null): Column<Arm>[] {
  return [
    {
      header: "Subject",
      className: "break-words sm:max-w-[24rem]",
      cell: (arm) => (
        <>
          <span className="font-bold">{variantLetter(arm.variant)}</span> {arm.subject}
          {arm.variant === winner ? (
            <span className="ml-2 rounded-brand bg-brand-strong px-2 py-0.5 text-sm font-semibold text-white">
              Winner
            </span>
          ) : null}
        </>
      ),
    },
    { header: "Sent", align: "right", cell: (arm) => formatCount(arm.sent) },
    {
      header: "Opened",
      align: "right",
      cell: (arm) => `${formatCount(arm.opened)} (${percent(arm.opened, arm.sent)})`,
    },
    {
      header: "Clicked",
      align: "right",
      cell: (arm) => `${formatCount(arm.clicked)} (${percent(arm.clicked, arm.sent)})`,
    },
  ];
}

export function AbTestSection({ test, status }: { test: AbTestReport; status: string }) {
  const gone = test.testShare.total - test.testShare.waiting;
  return (
    <AdminSection id="ab-heading" title="A/B test: subject lines">
      <p className="mt-2 text-sm">
        {`${test.sharePercent}% of the audience got a test, split evenly between ${test.arms.length} subjects; the winner has the most ${AB_WINNER_BY[test.winnerBy].toLowerCase()} after ${waitText(test.waitMinutes)}.`}
        {test.winner === null && test.decideAt ? (
          <>
            {" It is chosen at "}
            <StaffTime iso={test.decideAt} />, unless you pick it now.
          </>
        ) : null}
      </p>
      <DataTable
        className="mt-3"
        caption="The test share"
        columns={columns(test.winner)}
        rows={test.arms}
        rowKey={(arm) => arm.variant}
      />
      {test.reason ? (
        <p className="mt-3" data-testid="ab-reason">
          {test.reason}
          {test.decidedAt ? (
            <>
              {" "}
              (<StaffTime iso={test.decidedAt} />)
            </>
          ) : null}
        </p>
      ) : null}
      {test.remainder ? (
        <DataTable
          className="mt-3"
          caption="The rest of the audience, with the winning subject"
          columns={columns(null)}
          rows={[test.remainder]}
          rowKey={(arm) => arm.variant}
        />
      ) : null}
      {test.pick === "after-test-share" ? (
        <p className="mt-3" data-testid="ab-test-share-sending">
          {`The test share is still being sent: ${formatCount(gone)} of ${plural(test.testShare.total, "message")} gone${status === "paused" ? " (the campaign is paused)" : ""}. You can pick a winner once it has gone out.`}
        </p>
      ) : null}
      {test.pick === "now" ? (
        <Form method="post" className="mt-3">
          <input type="hidden" name="action" value="pick-winner" />
          <button type="submit" className={outlineButtonClass}>
            Pick winner now
          </button>
          <p className="mt-1 text-sm">
            Chooses by the figures above and sends the winning subject to the rest at once.
          </p>
        </Form>
      ) : null}
    </AdminSection>
  );
}
