import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LinkPreviewError, previewOf, readLinkPreview } from "./link-preview";

const PAGE = `<!doctype html><html><head><title>Plain title</title>
<meta property="og:title" content="Rust &amp; Herald">
<meta property="og:description" content="  What we learnt
  in a year ">
<meta property="og:image" content="/images/card.png">
</head><body>x</body></html>`;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/post") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(PAGE);
    } else if (request.url === "/big") {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<title>x</title>${"a".repeat(1024 * 1024 + 10)}`);
    } else if (request.url === "/file.zip") {
      response.writeHead(200, { "content-type": "application/zip" });
      response.end("PK");
    } else {
      response.writeHead(302, { location: "file:///etc/passwd" });
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a bookmark's details from its page", () => {
  it("reads the Open Graph tags, the image made absolute", () => {
    expect(previewOf(PAGE, new URL("https://example.org/blog/post"))).toEqual({
      title: "Rust & Herald",
      description: "What we learnt in a year",
      image: "https://example.org/images/card.png",
    });
  });

  it("falls back to <title> and the description, and drops an image that is not http(s)", () => {
    const page =
      '<title> Just a page </title><meta name="description" content="About it"><meta property="og:image" content="javascript:alert(1)">';
    expect(previewOf(page, new URL("https://example.org/"))).toEqual({
      title: "Just a page",
      description: "About it",
      image: "",
    });
  });

  it("fetches a page when private addresses are allowed (the tests' loopback)", async () => {
    await expect(readLinkPreview(`${base}/post`, { allowPrivate: true })).resolves.toEqual({
      title: "Rust & Herald",
      description: "What we learnt in a year",
      image: `${base}/images/card.png`,
    });
  });

  it("refuses loopback by default, other schemes, other types, large pages and bad redirects", async () => {
    const refused = (address: string, allowPrivate = true) =>
      expect(readLinkPreview(address, { allowPrivate })).rejects.toThrow(LinkPreviewError);
    await refused(`${base}/post`, false);
    await expect(readLinkPreview(`${base}/post`, { allowPrivate: false })).rejects.toThrow(
      /private network/,
    );
    await refused("file:///etc/passwd");
    await refused("ftp://example.org/");
    await expect(readLinkPreview(`${base}/file.zip`, { allowPrivate: true })).rejects.toThrow(
      /not a web page/,
    );
    await expect(readLinkPreview(`${base}/big`, { allowPrivate: true })).rejects.toThrow(
      /larger than 1 MB/,
    );
    await expect(readLinkPreview(`${base}/elsewhere`, { allowPrivate: true })).rejects.toThrow(
      /only http and https/,
    );
  });
});
