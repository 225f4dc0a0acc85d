import { describe, expect, it } from "vitest";
import { documentResponse, responseBody } from "./document";

describe("a rendered document beside its Response", () => {
  it("comes back as the very bytes the entry rendered, with the Response's status and headers", async () => {
    const bytes = Buffer.from("<!DOCTYPE html><html><body>Grüße — ok</body></html>");
    const response = documentResponse(bytes, {
      status: 404,
      headers: { "content-type": "text/html; charset=utf-8" },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await responseBody(response)).toBe(bytes);
  });

  it("reads any other response's body", async () => {
    const response = new Response("plain text, not rendered here", { status: 200 });
    expect((await responseBody(response)).toString()).toBe("plain text, not rendered here");
  });
});
