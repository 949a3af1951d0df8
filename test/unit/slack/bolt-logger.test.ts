import { Writable } from "node:stream";
import { LogLevel } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.ts";
import { boltLogger, scrubTokens } from "../../../src/slack/bolt-logger.ts";

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

describe("boltLogger", () => {
  it("writes Bolt's lines to pino at the same level, tagged bolt", () => {
    const { logger, lines } = capture("debug");
    const bolt = boltLogger(logger);
    bolt.debug("d");
    bolt.info("i", { n: 1 });
    bolt.warn("w");
    bolt.error("e", new Error("boom"));
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [20, "d"],
      [30, 'i {"n":1}'],
      [40, "w"],
      [50, "e boom"],
    ]);
    expect(lines.every((line) => line.component === "bolt")).toBe(true);
    expect(lines[3]!.err).toMatchObject({ name: "Error", message: "boom" });
  });

  it("follows pino's level and drops what is below it", () => {
    const { logger, lines } = capture("warn");
    const bolt = boltLogger(logger);
    expect(bolt.getLevel()).toBe(LogLevel.WARN);
    bolt.info("hidden");
    bolt.warn("shown");
    expect(lines.map((line) => line.msg)).toEqual(["shown"]);
  });

  it("scrubs tokens from every line", () => {
    const { logger, lines } = capture("info");
    boltLogger(logger).info(
      "auth with xoxb-1234-abcd and xapp-1-A1-xyz",
      new Error("xoxp-9-9 bad"),
    );
    expect(JSON.stringify(lines)).not.toMatch(/xox[bp]-|xapp-/);
    expect(scrubTokens("Bearer xoxb-12-34")).toBe("Bearer [redacted]");
  });
});
