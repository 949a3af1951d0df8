import { describe, expect, it } from "vitest";
import { parseSimulatorArgs } from "../../../src/simulator/cli.ts";

describe("simulator CLI: --unhealthy and --churn", () => {
  it("takes a fraction and a rate", () => {
    expect(parseSimulatorArgs(["--unhealthy", "0.3", "--churn=120"])).toMatchObject({
      unhealthy: 0.3,
      churn: 120,
    });
    expect(parseSimulatorArgs([])).not.toHaveProperty("unhealthy");
    expect(parseSimulatorArgs(["--unhealthy", "0", "--churn", "0"])).toMatchObject({
      unhealthy: 0,
      churn: 0,
    });
  });

  it("refuses values out of range or missing, saying what it wants", () => {
    for (const bad of ["1.5", "-0.1", "half"]) {
      expect(() => parseSimulatorArgs(["--unhealthy", bad])).toThrow(
        /^--unhealthy: must be a fraction between 0 and 1/,
      );
    }
    for (const bad of ["-1", "fast", "1e9"]) {
      expect(() => parseSimulatorArgs(["--churn", bad])).toThrow(
        /^--churn: must be a number of changes per minute/,
      );
    }
    expect(() => parseSimulatorArgs(["--unhealthy", ""])).toThrow(/--unhealthy wants a value/);
    expect(() => parseSimulatorArgs(["--churn="])).toThrow(/--churn wants a value/);
    expect(() => parseSimulatorArgs(["--churn"])).toThrow(/usage: simulator .*--churn PER_MINUTE/);
  });
});
