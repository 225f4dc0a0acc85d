import { useEffect } from "react";
import { useRevalidator } from "react-router";
import type { CampaignProgress } from "../../server/campaigns/reports";
import { formatCount } from "../../shared/format";
import type { CAMPAIGN_STATUSES } from "../../shared/schemas/campaign";

export type CampaignStatusName = (typeof CAMPAIGN_STATUSES)[number];

const LOOK: Record<CampaignStatusName, string> = {
  draft: "bg-black/10 text-ink",
  scheduled: "bg-secondary/25 text-ink",
  sending: "bg-brand/20 text-ink",
  paused: "bg-secondary/25 text-ink",
  sent: "bg-ok/15 text-ok",
  failed: "bg-danger/15 text-danger",
  cancelled: "bg-black/10 text-ink",
};

/** Our statuses get their colour; a provider's own (MailerLite's "ready") a neutral one. */
export function CampaignStatusBadge({ status }: { status: CampaignStatusName | (string & {}) }) {
  const look = LOOK[status as CampaignStatusName] ?? "bg-black/10 text-ink";
  return (
    <span className={`inline-block rounded-brand px-2 py-0.5 text-xs font-semibold ${look}`}>
      {status}
    </span>
  );
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Sent / failed / total as a bar, with the pace and the time left while sending. */
export function CampaignProgressBar({
  progress,
  status,
}: {
  progress: CampaignProgress;
  status: CampaignStatusName;
}) {
  const done = progress.sent + progress.failed;
  const percent = progress.total > 0 ? Math.floor((done / progress.total) * 100) : 0;
  return (
    <div>
      <div
        role="progressbar"
        aria-label="Sending progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%: ${progress.sent} sent, ${progress.failed} failed of ${progress.total}`}
        className="flex h-3 overflow-hidden rounded-full bg-black/10"
      >
        <div
          className="bg-ok"
          style={{ width: `${progress.total ? (progress.sent / progress.total) * 100 : 0}%` }}
        />
        <div
          className="bg-danger"
          style={{ width: `${progress.total ? (progress.failed / progress.total) * 100 : 0}%` }}
        />
      </div>
      <p className="mt-1 text-sm" data-testid="campaign-progress">
        {[
          `${percent}%`,
          `${formatCount(progress.sent)} sent`,
          `${formatCount(progress.failed)} failed`,
          `${formatCount(progress.total)} recipients`,
          status === "sending" && progress.rate > 0 ? `${progress.rate}/s` : null,
          status === "sending" && progress.secondsLeft !== null
            ? `about ${duration(progress.secondsLeft)} left`
            : null,
        ]
          .filter(Boolean)
          .join(" · ")}
      </p>
    </div>
  );
}

/** Reloads the page's data every two seconds while something is sending (live progress). */
export function useLiveWhile(active: boolean) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") {
        void revalidator.revalidate();
      }
    }, 2_000);
    return () => clearInterval(timer);
  }, [active, revalidator]);
}
