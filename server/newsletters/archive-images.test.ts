import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImageHost, startImageHost } from "../../tests/support/archive-fixtures";
import { fetchImage, ImageFetchError, isPrivateAddress } from "./archive-images";

describe("isPrivateAddress", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
  ])("refuses %s", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(["93.184.216.34", "8.8.8.8", "2606:4700::1111"])("allows %s", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe("fetchImage", () => {
  let host: ImageHost;
  beforeAll(async () => {
    host = await startImageHost();
  });
  afterAll(() => host.stop());

  it("refuses loopback by default, by address and by a name that resolves to it, without connecting", async () => {
    await expect(fetchImage(`${host.base}/cover.png`, { allowPrivate: false })).rejects.toThrow(
      /private network/,
    );
    const byName = host.base.replace("127.0.0.1", "localhost");
    await expect(fetchImage(`${byName}/cover.png`, { allowPrivate: false })).rejects.toThrow(
      /private network/,
    );
    expect(host.hits.get("/cover.png")).toBeUndefined();
  });

  it("fetches with the setting on, and refuses what is not an image or not there", async () => {
    const bytes = await fetchImage(`${host.base}/cover.png`, { allowPrivate: true });
    expect(bytes.length).toBeGreaterThan(100);
    await expect(fetchImage(`${host.base}/page.html`, { allowPrivate: true })).rejects.toThrow(
      ImageFetchError,
    );
    await expect(fetchImage(`${host.base}/missing.png`, { allowPrivate: true })).rejects.toThrow(
      /answered 404/,
    );
    await expect(fetchImage("file:///etc/passwd", { allowPrivate: true })).rejects.toThrow(
      /only http/,
    );
  });
});
