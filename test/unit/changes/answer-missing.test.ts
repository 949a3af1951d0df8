import { describe, expect, it } from "vitest";
import { answerMissing } from "../../../src/changes/execute.ts";
import { errorFromException, errorFromResponse } from "../../../src/palette/error-map.ts";

/**
 * After a write went out, which errors mean "Palette may have done it" (unconfirmed, followed by
 * reading) and which mean "it was not taken" (failed, or not sent, with Palette's reason).
 */

const endpoint = "PUT /v1/cloudconfigs/aws/c1/machinePools/worker-pool";
const socketError = (code: string) => Object.assign(new Error(code), { code });

describe("answerMissing", () => {
  it("a time-out or a reset after connecting: may have happened", () => {
    expect(
      answerMissing(errorFromException(socketError("UND_ERR_HEADERS_TIMEOUT"), endpoint)),
    ).toBe(true);
    expect(answerMissing(errorFromException(socketError("ECONNRESET"), endpoint))).toBe(true);
    expect(answerMissing(errorFromException(socketError("UND_ERR_SOCKET"), endpoint))).toBe(true);
  });

  it("never connected: not sent", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "UND_ERR_CONNECT_TIMEOUT"]) {
      expect(answerMissing(errorFromException(socketError(code), endpoint)), code).toBe(false);
    }
  });

  it("a gateway's 500/502/504 or a 408 may hide an applied write; a 503 or a 4xx is a refusal", () => {
    for (const status of [500, 502, 504, 408]) {
      expect(answerMissing(errorFromResponse(status, "", endpoint)), String(status)).toBe(true);
    }
    for (const status of [503, 400, 401, 403, 404, 409, 429]) {
      expect(answerMissing(errorFromResponse(status, "", endpoint)), String(status)).toBe(false);
    }
  });

  it("anything that is not Palette's error is not a lost answer", () => {
    expect(answerMissing(new Error("pool worker-pool is gone"))).toBe(false);
  });
});
