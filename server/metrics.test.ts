import { describe, expect, it } from "vitest";
import {
  countMail,
  metricsTokenMatches,
  observeRequest,
  recordImportJob,
  renderMetrics,
  startMetrics,
} from "./metrics";

const TOKEN = "a-metrics-token-0123456789";

describe("the METRICS_TOKEN check", () => {
  it("takes only the exact token as a bearer token", () => {
    expect(metricsTokenMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(metricsTokenMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    for (const wrong of [
      null,
      "",
      "Bearer ",
      TOKEN,
      `Bearer ${TOKEN} `,
      `Bearer ${TOKEN.slice(1)}`,
      `Bearer ${TOKEN}0`,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN.toUpperCase()}`,
    ]) {
      expect(metricsTokenMatches(wrong, TOKEN), String(wrong)).toBe(false);
    }
  });
});

describe("the exposition", () => {
  it("labels a request by pattern, method and status class, and carries what other code records", async () => {
    // Before startMetrics (a server without METRICS_TOKEN), counting is a no-op, not an error.
    recordImportJob("csv", "failed");
    await startMetrics(null);
    observeRequest("/newsletter/:id", "GET", 404, 0.012);
    observeRequest("/newsletter/:id", "GET", 200, 0.003);
    countMail("sent", null, "transactional");
    recordImportJob("ghost", "done");
    const { body, contentType } = await renderMetrics();
    expect(contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(body).toContain(
      'herald_http_request_duration_seconds_count{route="/newsletter/:id",method="GET",status="4xx"} 1',
    );
    expect(body).toContain(
      'herald_http_request_duration_seconds_count{route="/newsletter/:id",method="GET",status="2xx"} 1',
    );
    expect(body).toContain('herald_mail_sent_total{tenant="none",stream="transactional"} 1');
    expect(body).toContain('herald_import_jobs_finished_total{kind="ghost",status="done"} 1');
    expect(body).not.toContain('kind="csv"');
    expect(body).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    // No database yet: the scrape-time gauges answer 0 rather than failing.
    expect(body).toContain("herald_send_queue_messages 0");
  });
});
