import { describe, expect, it } from "vitest";
import { ImportFileError } from "./import-rows";
import { decodeEntities, readGhostMembers, readSubstackList } from "./import-sources";

const GHOST_HEADER =
  "id,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers";
const NOW = new Date("2026-11-27T00:00:00.000Z");

describe("reading other platforms' audiences", () => {
  it("decodes the HTML entities exports leave in names, and leaves anything else alone", () => {
    expect(decodeEntities("Bob &amp; Co &eacute;t&#233; &#x1F600; &lt;b&gt;")).toBe(
      "Bob & Co été 😀 <b>",
    );
    expect(decodeEntities("&bogus; &#0; &#xD800; & plain")).toBe("&bogus; &#0; &#xD800; & plain");
  });

  it("reads Ghost's members: long names shortened, labels trimmed and once, dates only when real", async () => {
    const long = "N".repeat(150);
    const { rows, refused } = await readGhostMembers(
      [
        GHOST_HEADER,
        `1,a@example.com,${long},${"x".repeat(3_000)},TRUE,false,,not a date,," VIP ,VIP,, Early bird ",`,
        "2,b@example.com,B,,false,false,,2999-01-01T00:00:00.000Z,,VIP,",
        "3,c@example.com,'); DROP TABLE subscribers;--,,true,false,,,,,",
      ].join("\n"),
      NOW,
    );
    expect(refused).toEqual([]);
    expect(rows[0]).toMatchObject({
      line: 2,
      email: "a@example.com",
      name: "N".repeat(100),
      status: "active",
      since: null,
      listNames: ["VIP", "Early bird"],
    });
    expect(rows[0]?.note).toHaveLength(2_000);
    // Not subscribed: kept as unsubscribed, on no list; a date in the future is not kept.
    expect(rows[1]).toMatchObject({ status: "unsubscribed", since: null, listNames: [] });
    expect(rows[2]?.name).toBe("'); DROP TABLE subscribers;--");
  });

  it("reads Substack's email list and refuses a file without its columns", async () => {
    const { rows } = await readSubstackList(
      "email,active_subscription,expiry,plan,email_disabled,created_at\nx@example.com,true,,comp,FALSE,2020-01-01T00:00:00Z\n",
      NOW,
    );
    expect(rows).toEqual([
      {
        line: 2,
        email: "x@example.com",
        name: "",
        status: "active",
        since: "2020-01-01T00:00:00.000Z",
        note: "Substack plan: comp",
        listNames: [],
      },
    ]);
    await expect(readSubstackList("email,name\nx@example.com,X\n")).rejects.toThrow(
      ImportFileError,
    );
    await expect(readGhostMembers("")).rejects.toThrow(
      'This is not a Ghost members export: it has no "email", "subscribed_to_emails" column.',
    );
  });
});
