import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar, LinePath } from "@visx/shape";
import type { GrowthDay } from "../../../server/subscribers/growth";
import { formatCount } from "../../../shared/format";
import type { Column } from "../ui/data-table";
import { ChartKey, ChartNumbers } from "./chart-parts";

/*
 * Subscriber growth per day (issue 16, point 8), drawn with visx: plain SVG rendered on the
 * server, so it shows without JavaScript; the numbers are in a table below it for screen readers
 * and for copying (docs/decisions/018-charts.md).
 */

const WIDTH = 720;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 28, left: 44 };
/** Short axis labels that fit the margin at any size: 950, 12K, 1.2M. */
const axisNumber = new Intl.NumberFormat("en-US", {
  notation: "compact",
  maximumFractionDigits: 1,
});

const COLUMNS: Column<GrowthDay>[] = [
  { header: "Day", className: "sm:whitespace-nowrap", cell: (row) => row.day },
  { header: "New", align: "right", cell: (row) => row.new },
  { header: "Confirmed", align: "right", cell: (row) => row.confirmed },
  { header: "Unsubscribed", align: "right", cell: (row) => row.unsubscribed },
  { header: "Net", align: "right", cell: (row) => (row.net > 0 ? `+${row.net}` : row.net) },
];

export function GrowthChart({ days, caption }: { days: GrowthDay[]; caption: string }) {
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({
    domain: days.map((day) => day.day),
    range: [0, innerWidth],
    padding: 0.2,
  });
  const top = Math.max(1, ...days.map((day) => Math.max(day.new, day.confirmed, day.net)));
  const bottom = Math.min(0, ...days.map((day) => Math.min(-day.unsubscribed, day.net)));
  const y = scaleLinear<number>({ domain: [bottom, top], range: [innerHeight, 0], nice: true });
  const half = x.bandwidth() / 2;
  const every = Math.max(1, Math.ceil(days.length / 8));
  const totals = days.reduce(
    (sum, day) => ({
      new: sum.new + day.new,
      confirmed: sum.confirmed + day.confirmed,
      unsubscribed: sum.unsubscribed + day.unsubscribed,
    }),
    { new: 0, confirmed: 0, unsubscribed: 0 },
  );
  const net = totals.confirmed - totals.unsubscribed;
  return (
    <figure className="mt-3">
      <figcaption className="text-sm">
        {`${caption}: ${formatCount(totals.new)} new, ${formatCount(totals.confirmed)} confirmed, ${formatCount(totals.unsubscribed)} unsubscribed, net ${net > 0 ? "+" : ""}${formatCount(net)}.`}
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="mt-2 h-auto w-full max-w-3xl"
        role="img"
        aria-label={`${caption}; the numbers are in the table below.`}
      >
        <Group left={MARGIN.left} top={MARGIN.top}>
          {days.map((day) => {
            const left = x(day.day) ?? 0;
            return (
              <g key={day.day}>
                <Bar
                  x={left}
                  width={half}
                  y={y(day.confirmed)}
                  height={Math.max(0, y(0) - y(day.confirmed))}
                  className="fill-ok"
                />
                <Bar
                  x={left + half}
                  width={half}
                  y={y(0)}
                  height={Math.max(0, y(-day.unsubscribed) - y(0))}
                  className="fill-danger"
                />
              </g>
            );
          })}
          <LinePath
            data={days}
            x={(day) => (x(day.day) ?? 0) + half}
            y={(day) => y(day.net)}
            className="stroke-ink"
            strokeWidth={2}
            fill="none"
          />
          <line x1={0} x2={innerWidth} y1={y(0)} y2={y(0)} className="stroke-black/30" />
          <AxisLeft
            scale={y}
            numTicks={Math.min(4, top - bottom)}
            tickFormat={(value) => axisNumber.format(Math.round(Number(value)))}
            tickClassName="text-[10px]"
          />
          <AxisBottom
            top={innerHeight}
            scale={x}
            tickValues={days.filter((_, index) => index % every === 0).map((day) => day.day)}
            tickFormat={(day) => day.slice(5)}
            tickClassName="text-[10px]"
          />
        </Group>
      </svg>
      <ChartKey
        items={[
          { swatch: "size-3 bg-ok", label: "Confirmed" },
          { swatch: "size-3 bg-danger", label: "Unsubscribed" },
          { swatch: "h-0.5 w-4 bg-ink align-middle", label: "Net" },
        ]}
      />
      <ChartNumbers
        summary="The numbers per day"
        columns={COLUMNS}
        rows={days}
        rowKey={(row) => row.day}
      />
    </figure>
  );
}
