import { formatDateTime } from "../../../shared/format";
import { utcToZonedLocal } from "../../../shared/time-zone";
import { useTimeZone } from "../../lib/time-zone";

/** Opens and clicks per hour as grouped bars (inline SVG: no chart library for two series). */
export function ActivityChart({
  timeline,
}: {
  timeline: { hour: string; opens: number; clicks: number }[];
}) {
  const zone = useTimeZone();
  if (timeline.length === 0) return <p className="text-sm">No opens or clicks yet.</p>;
  const max = Math.max(1, ...timeline.flatMap((point) => [point.opens, point.clicks]));
  const slot = 28;
  const height = 140;
  const width = Math.max(timeline.length * slot, 200);
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        className="h-48 w-full max-w-3xl"
        role="img"
        aria-label={`Opens and clicks per hour: ${timeline.map((p) => `${formatDateTime(p.hour, zone)} ${p.opens} opens, ${p.clicks} clicks`).join("; ")}`}
      >
        {timeline.map((point, index) => {
          const x = index * slot + 4;
          const opens = (point.opens / max) * height;
          const clicks = (point.clicks / max) * height;
          return (
            <g key={point.hour}>
              <rect
                x={x}
                y={height - opens}
                width={10}
                height={opens}
                className="fill-brand-strong"
              />
              <rect
                x={x + 11}
                y={height - clicks}
                width={10}
                height={clicks}
                className="fill-secondary"
              />
              <text x={x} y={height + 14} fontSize="9" className="fill-ink">
                {utcToZonedLocal(point.hour, zone).slice(11, 13)}h
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-1 flex gap-4 text-sm">
        <span>
          <span aria-hidden="true" className="mr-1 inline-block size-3 bg-brand-strong" />
          Opens
        </span>
        <span>
          <span aria-hidden="true" className="mr-1 inline-block size-3 bg-secondary" />
          Clicks
        </span>
        <span>per hour ({zone.replaceAll("_", " ")})</span>
      </figcaption>
    </figure>
  );
}
