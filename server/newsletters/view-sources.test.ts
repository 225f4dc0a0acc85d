import { describe, expect, it } from "vitest";
import { classifyView, type ViewOrigin, withEmailSource } from "./view-sources";

const view = (origin: Partial<ViewOrigin>) =>
  classifyView({
    utmSource: null,
    utmMedium: null,
    referer: null,
    ownHost: "news.example.com",
    ...origin,
  });

describe("where a view came from", () => {
  it("takes utm_source first", () => {
    expect(view({ utmSource: "linkedin", referer: "https://t.co/x" })).toEqual({
      source: "linkedin",
      host: "",
    });
    expect(view({ utmSource: " LinkedIn " })).toEqual({ source: "linkedin", host: "" });
    expect(view({ utmSource: "email" })).toEqual({ source: "email", host: "" });
    expect(view({ utmSource: "newsletter" })).toEqual({ source: "email", host: "" });
    expect(view({ utmMedium: "email" })).toEqual({ source: "email", host: "" });
  });

  it("names LinkedIn by its hosts and its Android app", () => {
    for (const referer of [
      "https://www.linkedin.com/feed/",
      "https://linkedin.com/",
      "https://lnkd.in/abc123",
      "https://uk.linkedin.com/posts/x",
      "android-app://com.linkedin.android/",
    ]) {
      expect(view({ referer }), referer).toEqual({ source: "linkedin", host: "" });
    }
    // A look-alike is another site.
    expect(view({ referer: "https://notlinkedin.com/" })).toEqual({
      source: "other",
      host: "notlinkedin.com",
    });
  });

  it("keeps only the host of another site, without www. or the path", () => {
    expect(view({ referer: "https://www.Google.com/search?q=secret+words" })).toEqual({
      source: "other",
      host: "google.com",
    });
    expect(view({ referer: "https://news.ycombinator.com:443/item?id=1" })).toEqual({
      source: "other",
      host: "news.ycombinator.com",
    });
  });

  it("calls the site itself internal, and no referrer (or a strange one) direct", () => {
    expect(view({ referer: "https://news.example.com/newsletter" })).toEqual({
      source: "internal",
      host: "",
    });
    expect(view({ referer: "http://localhost:3000/", ownHost: "localhost:3000" })).toEqual({
      source: "internal",
      host: "",
    });
    expect(view({})).toEqual({ source: "direct", host: "" });
    expect(view({ referer: "not a url" })).toEqual({ source: "direct", host: "" });
    expect(view({ referer: "file:///etc/passwd" })).toEqual({ source: "direct", host: "" });
    // An unknown utm_source falls back on the referrer.
    expect(view({ utmSource: "twitter", referer: "https://t.co/abc" })).toEqual({
      source: "other",
      host: "t.co",
    });
  });
});

describe("the campaign's links to the newsletter", () => {
  it("carry utm_source=email unless they have a source already", () => {
    expect(withEmailSource("https://news.example.com/newsletter/hello")).toBe(
      "https://news.example.com/newsletter/hello?utm_source=email&utm_medium=email",
    );
    expect(withEmailSource("https://news.example.com/newsletter/hello?utm_source=x")).toBe(
      "https://news.example.com/newsletter/hello?utm_source=x",
    );
  });
});
