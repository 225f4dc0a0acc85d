import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box";
import { manifestSignatureProblem, signManifest } from "./signed-manifest";

const KEY = "signed-manifest-test-key-aaaaaaaaaaaaaaaaaa";
const OTHER = "signed-manifest-other-key-bbbbbbbbbbbbbbbbbb";
const box = new SecretBox(KEY);
const strict = { allowUnsigned: false };
/** As read back from the file: JSON written, then parsed. */
const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value, null, 2));

describe("signed manifests (issue 44, finding 7)", () => {
  const manifest = { format: "herald-backup", files: [{ path: "database.sqlite", sha256: "ab" }] };

  it("checks out as written, under the current key or a previous one", () => {
    const signed = roundTrip(signManifest(box, "backup", manifest));
    expect(manifestSignatureProblem(box, "backup", signed, strict)).toBeNull();
    expect(
      manifestSignatureProblem(new SecretBox(OTHER, [KEY]), "backup", signed, strict),
    ).toBeNull();
  });

  it("refuses a manifest changed after signing, checksums recomputed or not", () => {
    const signed = roundTrip(signManifest(box, "backup", manifest));
    signed.files[0].sha256 = "cd";
    expect(manifestSignatureProblem(box, "backup", signed, strict)).toMatch(
      /does not match its signature/,
    );
    const added = { ...roundTrip(signManifest(box, "backup", manifest)), extra: 1 };
    expect(manifestSignatureProblem(box, "backup", added, strict)).toMatch(/does not match/);
    // A backup's signature does not pass for a tenant archive's.
    expect(
      manifestSignatureProblem(
        box,
        "tenant archive",
        roundTrip(signManifest(box, "backup", manifest)),
        strict,
      ),
    ).toMatch(/does not match/);
  });

  it("names the key it needs when this install does not have it", () => {
    const signed = roundTrip(signManifest(box, "backup", manifest));
    expect(manifestSignatureProblem(new SecretBox(OTHER), "backup", signed, strict)).toContain(
      `signed under key id ${box.keyId}, which is neither HERALD_SECRET_KEY here`,
    );
    expect(manifestSignatureProblem(null, "backup", signed, strict)).toContain(
      "this install has no secret key to check it",
    );
    // Taken as unsigned when the operator says so: it proves no more than none would.
    expect(
      manifestSignatureProblem(new SecretBox(OTHER), "backup", signed, { allowUnsigned: true }),
    ).toBeNull();
  });

  it("refuses an unsigned manifest unless the operator allows it", () => {
    expect(manifestSignatureProblem(box, "backup", manifest, strict)).toMatch(
      /not signed.*--allow-unsigned/,
    );
    expect(manifestSignatureProblem(box, "backup", manifest, { allowUnsigned: true })).toBeNull();
    // A forged signature is not "unsigned".
    expect(
      manifestSignatureProblem(
        box,
        "backup",
        { ...manifest, hmac: `${box.keyId}.AAAA` },
        {
          allowUnsigned: true,
        },
      ),
    ).toMatch(/does not match/);
  });
});
