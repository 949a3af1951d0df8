import { describe, expect, it, vi } from "vitest";
import { knownNamesByPoll, type NamePage } from "../../../src/assistant/known-names.ts";

/** a snapshot of `count` clusters served a page at a time, counting what was asked */
function snapshot(count: number) {
  const rows = Array.from({ length: count }, (_, i) => ({
    key: ["p", String(i).padStart(6, "0")] as const,
    name: `Web-Prod-${i}`,
  }));
  const asked = { stamps: 0, pages: 0 };
  let stamp = "1";
  const page: NamePage = async (after, limit) => {
    asked.pages += 1;
    const from = after ? rows.findIndex((row) => row.key[1] === after[1]) + 1 : 0;
    return rows.slice(from, from + limit);
  };
  return {
    asked,
    move: () => {
      stamp = String(Number(stamp) + 1);
    },
    source: {
      stamp: async () => {
        asked.stamps += 1;
        return stamp;
      },
      page,
    },
  };
}

describe("the poll's names, a Set built once per poll (issue 36 item 4)", () => {
  it("reads the names a page at a time once, and again only when the poll moved", async () => {
    const fleet = snapshot(5_000);
    let now = 0;
    const known = knownNamesByPoll({ ...fleet.source, stampEveryMs: 5_000, now: () => now });
    const first = await known();
    expect(first.size).toBe(5_000);
    // lower-cased: a name is matched whatever its case
    expect(first.has("web-prod-4999")).toBe(true);
    expect(fleet.asked.pages).toBe(3);
    // questions within the stamp's interval do not even ask the stamp
    await known();
    expect(fleet.asked.stamps).toBe(1);
    now += 6_000;
    expect(await known()).toBe(first);
    expect(fleet.asked.pages).toBe(3);
    fleet.move();
    now += 6_000;
    // the poll moved: this question is checked against the last names while the new Set builds
    expect(await known()).toBe(first);
    // the rebuild runs behind the question: wait for its pages, not for a guessed time
    await vi.waitFor(() => expect(fleet.asked.pages).toBe(6));
    now += 6_000;
    expect(await known()).not.toBe(first);
  });
});
