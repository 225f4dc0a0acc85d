import { describe, expect, it } from "vitest";
import { expectConsoleError, serverErrorLines, unexplained } from "./error-logs";

describe("errors nobody expected", () => {
  it("counts a server's pino lines at error and fatal level and bare errors, nothing else", () => {
    const output = [
      '{"level":30,"msg":"Herald listening on http://localhost:3000"}',
      '{"level":40,"msg":"slow query"}',
      '{"level":50,"msg":"unhandled error"}',
      '{"level":60,"msg":"cannot open the database"}',
      "Herald listening on http://localhost:3000",
      '{"not a log line": ',
      "(node:4242) Warning: something experimental",
      "TypeError: Cannot read properties of undefined (reading 'id')",
      "    at loader (file:///build/server/index.js:12:3)",
      "",
    ].join("\n");
    expect(serverErrorLines(output)).toEqual([
      '{"level":50,"msg":"unhandled error"}',
      '{"level":60,"msg":"cannot open the database"}',
      "TypeError: Cannot read properties of undefined (reading 'id')",
    ]);
  });

  it("reports errors no expectation explains, and expectations nothing matched", () => {
    const expected = [
      { source: "server" as const, pattern: /unhandled error/, matched: 0 },
      { source: "console" as const, pattern: /never logged/, matched: 0 },
    ];
    const result = unexplained(
      [
        { source: "server", text: '{"level":50,"msg":"unhandled error"}' },
        { source: "server", text: '{"level":50,"msg":"unhandled error"}' },
        { source: "console", text: "Warning: Each child in a list should have a unique key" },
        // an expectation for a server's line does not excuse the same text from console.error
        { source: "console", text: "unhandled error" },
      ],
      expected,
    );
    expect(result.unexpected).toEqual([
      "console.error: Warning: Each child in a list should have a unique key",
      "console.error: unhandled error",
    ]);
    expect(result.unmet.map((e) => e.pattern)).toEqual([/never logged/]);
  });

  it("lets a test log an error it declares (the setup file fails it otherwise)", () => {
    expectConsoleError(/provoked on purpose/);
    console.error(new Error("provoked on purpose"));
  });
});
