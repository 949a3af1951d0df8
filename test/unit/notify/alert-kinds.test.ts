import { describe, expect, it } from "vitest";
import { alertKindsMemory, readKinds } from "../../../src/notify/alerts/alert-kinds.ts";
import type { ScopeRead } from "../../../src/notify/poll/scope-read.ts";
import type { Scope } from "../../../src/palette/api.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { collectingLogger } from "../../support/palette-client-helpers.ts";

/**
 * A scope's alert kinds, read from Palette rarely and kept between cycles (split out of the poll's
 * closure, issue 26): a 403 or 404 costs the scope its alerts, said once; anything else fails the
 * cycle. The poll's own tests (poll-alerts-refused.test.ts) drive the same rules through a cycle.
 */

const refusedWith = (kind: "forbidden" | "not_found" | "server", status: number) =>
  new PaletteError(kind, status, undefined, `body ${status}`, "ref", "GET /v1/alerts");

/** A Palette whose alert kinds each scope answers in turn, counting the calls. */
function kindsPalette(answer: (scope: string) => Error | string[]) {
  const calls: string[] = [];
  return {
    calls,
    async listAlertComponents(scope: Scope) {
      const name = scope.projectUid ?? "";
      calls.push(name);
      const found = answer(name);
      if (found instanceof Error) throw found;
      return found.map((n) => ({ name: n }));
    },
  };
}

const readOf = (scope: string, mode: ScopeRead["mode"]) => ({ scope, mode }) as ScopeRead;

describe("readKinds", () => {
  it("lists the kinds Palette names, skipping unnamed ones", async () => {
    const palette = kindsPalette(() => ["ClusterHealth", ""]);
    const kinds = await readKinds(palette, "p1");
    expect([...kinds.supported]).toEqual(["ClusterHealth"]);
    expect(kinds.refused).toBeUndefined();
    expect(palette.calls).toEqual(["p1"]);
  });

  it("turns a 403 or a 404 into a refusal in words, the tenant and projects named apart", async () => {
    const forbidden = await readKinds(
      kindsPalette(() => refusedWith("forbidden", 403)),
      "p2",
    );
    expect(forbidden.supported.size).toBe(0);
    expect(forbidden.refused).toEqual({
      summary: "alerts unavailable for project p2: Palette refused (403)",
      detail: expect.stringContaining("body 403"),
    });
    const none = await readKinds(
      kindsPalette(() => refusedWith("not_found", 404)),
      "",
    );
    expect(none.refused?.summary).toBe("alerts unavailable for the tenant: Palette has none (404)");
  });

  it("lets any other failure through, so the cycle fails and is retried whole", async () => {
    await expect(
      readKinds(
        kindsPalette(() => refusedWith("server", 500)),
        "p1",
      ),
    ).rejects.toThrow(PaletteError);
  });
});

describe("the alert kinds the poller remembers", () => {
  it("reads a scope's kinds once, then only at a full read, using the kept ones for news", async () => {
    const palette = kindsPalette(() => ["ClusterHealth"]);
    const memory = alertKindsMemory(collectingLogger().logger);
    const reads = new Map([["p1", readOf("p1", "incremental")]]);

    const first = await memory.forCycle(palette, reads, () => false);
    expect(palette.calls).toEqual(["p1"]);
    expect([...first.kinds.keys()]).toEqual(["p1"]);
    memory.settled(first.kindsRead);

    // known now: a quiet incremental cycle neither reads nor judges the scope
    const quiet = await memory.forCycle(palette, reads, () => false);
    expect(quiet.kinds.size).toBe(0);
    // news: judged by the kept kinds, no call
    const news = await memory.forCycle(palette, reads, () => true);
    expect([...(news.kinds.get("p1")?.supported ?? [])]).toEqual(["ClusterHealth"]);
    expect(news.kindsRead.size).toBe(0);
    expect(palette.calls).toEqual(["p1"]);

    await memory.forCycle(palette, new Map([["p1", readOf("p1", "full")]]), () => false);
    expect(palette.calls).toEqual(["p1", "p1"]);
  });

  it("says a refusal once, re-reads the scope every cycle until it ends, and says its end once", async () => {
    let refused = true;
    const palette = kindsPalette(() =>
      refused ? refusedWith("forbidden", 403) : ["ClusterHealth"],
    );
    const { logger, lines } = collectingLogger("info");
    const memory = alertKindsMemory(logger);
    const reads = new Map([["p2", readOf("p2", "incremental")]]);
    const said = (text: string) => lines.filter((line) => line.includes(text)).length;

    for (let i = 0; i < 2; i += 1) {
      const cycle = await memory.forCycle(palette, reads, () => false);
      memory.settled(cycle.kindsRead);
    }
    expect(palette.calls).toEqual(["p2", "p2"]);
    expect(memory.isOff("p2")).toBe(true);
    expect(memory.unavailable()).toEqual([
      "alerts unavailable for project p2: Palette refused (403)",
    ]);
    expect(said("cluster changes are still reported")).toBe(1);

    refused = false;
    for (let i = 0; i < 2; i += 1) {
      const cycle = await memory.forCycle(palette, reads, () => false);
      memory.settled(cycle.kindsRead);
    }
    // back: read once more (it was off), then kept
    expect(palette.calls).toEqual(["p2", "p2", "p2"]);
    expect(memory.isOff("p2")).toBe(false);
    expect(memory.unavailable()).toEqual([]);
    expect(said("alerts available again for project p2")).toBe(1);
  });
});
