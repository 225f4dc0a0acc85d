import { describe, expect, it } from "vitest";
import { domainOf, listIdHeader, messageIdFor } from "./headers";

describe("mail headers", () => {
  it("makes Message-IDs on the sender's domain", () => {
    expect(messageIdFor("News <news@Mail.KD.example>".replace(/^.*<|>$/g, ""), "d1.c")).toBe(
      "<d1.c@mail.kd.example>",
    );
    expect(messageIdFor("newsletter@keydiscovery.com")).toMatch(
      /^<[0-9a-f-]{36}@keydiscovery\.com>$/,
    );
    expect(domainOf("not-an-address")).toBe("localhost");
  });

  it("names a list by RFC 2919: a phrase and a dot-atom id under the tenant's host", () => {
    expect(
      listIdHeader(
        { key: "newsletter", name: 'The "KD" Newsletter' },
        "keydiscovery",
        "https://keydiscovery.com",
      ),
    ).toBe('"The KD Newsletter" <newsletter.keydiscovery.keydiscovery.com>');
    expect(listIdHeader({ key: "x", name: "X" }, "main", "http://localhost:3000")).toBe(
      '"X" <x.main.localhost>',
    );
  });
});
