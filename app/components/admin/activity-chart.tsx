import { AxisBottom, AxisLeft } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar } from "@visx/shape";
import { formatDateTime } from "../../../shared/format";
import { utcToZonedLocal } from "../../../shared/time-zone";
import { useTimeZone } from "../../lib/time-zone";
import type { Column } from "../ui/data-table";
import { ChartKey, ChartNumbers } from "./chart-parts";

/*
 * A campaign's opens and clicks per hour, as grouped bars drawn with visx: SVG rendered on the
 * server, with the numbers in a table below (docs/decisions/018-audience.md).
 */

type Point = { hour: string; opens: number; clicks: number };

const WIDTH = 720;
const HEIGHT = 200;
const MARGIN = { top: 10, right: 10, bottom: 26, left: 36 };

export function ActivityChart({ timeline }: { timeline: Point[] }) {
  const zone = useTimeZone();
  if (timeline.length === 0) return <p className="text-sm">No opens or clicks yet.</p>;
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<string>({
    domain: timeline.map((point) => point.hour),
    range: [0, innerWidth],
    padding: 0.25,
  });
  const max = Math.max(1, ...timeline.flatMap((point) => [point.opens, point.clicks]));
  const y = scaleLinear<number>({ domain: [0, max], range: [innerHeight, 0], nice: true });
  const half = x.bandwidth() / 2;
  const every = Math.max(1, Math.ceil(timeline.length / 12));
  const columns: Column<Point>[] = [
    { header: "Hour", cell: (point) => formatDateTime(point.hour, zone) },
    { header: "Opens", align: "right", cell: (point) => point.opens },
    { header: "Clicks", align: "right", cell: (point) => point.clicks },
  ];
  return (
    <figure>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-auto w-full max-w-3xl"
        role="img"
        aria-label="Opens and clicks per hour; the numbers are in the table below."
      >
        <Group left={MARGIN.left} top={MARGIN.top}>
          {timeline.map((point) => {
            const left = x(point.hour) ?? 0;
            return (
              <g key={point.hour}>
                <Bar
                  x={left}
                  width={half}
                  y={y(point.opens)}
                  height={innerHeight - y(point.opens)}
                  className="fill-brand-strong"
                />
                <Bar
                  x={left + half}
                  width={half}
                  y={y(point.clicks)}
                  height={innerHeight - y(point.clicks)}
                  className="fill-secondary"
                />
              </g>
            );
          })}
          <AxisLeft
            scale={y}
            numTicks={Math.min(4, max)}
            tickFormat={(value) => String(Math.round(Number(value)))}
            tickClassName="text-[10px]"
          />
          <AxisBottom
            top={innerHeight}
            scale={x}
            tickValues={timeline.filter((_, index) => index % every === 0).map((p) => p.hour)}
            tickFormat={(hour) => `${utcToZonedLocal(hour, zone).slice(11, 13)}h`}
            tickClassName="text-[10px]"
          />
        </Group>
      </svg>
      <ChartKey
        asCaption
        items={[
          { swatch: "size-3 bg-brand-strong", label: "Opens" },
          { swatch: "size-3 bg-secondary", label: "Clicks" },
        ]}
      >
        <span>per hour ({zone.replaceAll("_", " ")})</span>
      </ChartKey>
      <ChartNumbers
        summary="The numbers per hour"
        columns={columns}
        rows={timeline}
        rowKey={(point) => point.hour}
      />
    </figure>
  );
}
