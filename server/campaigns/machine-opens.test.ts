import { describe, expect, it } from "vitest";
import { isMachineOpen } from "./machine-opens";

describe("machine opens", () => {
  it("flags privacy proxies, scanners and bots, and counts mail clients and Gmail's proxy", () => {
    for (const agent of [
      "Mozilla/5.0",
      "",
      null,
      "Mozilla/5.0 (compatible; Barracuda Sentinel)",
      "Mimecast-URL-Protect",
      "python-requests/2.31",
      "Googlebot/2.1",
    ]) {
      expect(isMachineOpen(agent), String(agent)).toBe(true);
    }
    for (const agent of [
      "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)",
      "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)",
      "Thunderbird/115.0",
    ]) {
      expect(isMachineOpen(agent), agent).toBe(false);
    }
  });
});
