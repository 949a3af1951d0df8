import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { AssistantTurnStore, HISTORY_TURNS } from "../../../src/store/assistant-turns.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";

const DAY = 86_400_000;

describe("AssistantTurnStore", () => {
  it("keeps the last turns of a conversation, oldest first, within the retention", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock();
    const turns = new AssistantTurnStore(db, clock, 7 * DAY);
    for (let i = 0; i < HISTORY_TURNS + 2; i++) {
      await turns.add({
        conversation: "C1:1.1",
        userId: "U1",
        question: `q${i}`,
        answer: `a${i}`,
        readText: `r${i}`,
      });
    }
    await turns.add({
      conversation: "C2:2.2",
      userId: "U1",
      question: "other",
      answer: "x",
      readText: "",
    });
    const history = await turns.history("C1:1.1");
    expect(history.map((turn) => turn.question)).toEqual(
      Array.from({ length: HISTORY_TURNS }, (_, i) => `q${i + 2}`),
    );
    clock.advance(8 * DAY);
    expect(await turns.history("C1:1.1")).toEqual([]);
    expect(await turns.prune()).toBe(HISTORY_TURNS + 3);
    await db.close();
  });

  it("records one vote per person on an answer that is still kept", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock();
    const turns = new AssistantTurnStore(db, clock, DAY);
    const id = await turns.add({
      conversation: "c",
      userId: "U1",
      question: "q",
      answer: "a",
      readText: "",
    });
    expect(await turns.vote(id, "U2", "up")).toBe(true);
    expect(await turns.vote(id, "U2", "down")).toBe(true);
    expect(await db.all("SELECT vote FROM assistant_feedback")).toEqual([{ vote: "down" }]);
    expect(await turns.vote(id + 100, "U2", "up")).toBe(false);
    clock.advance(2 * DAY);
    await turns.prune();
    expect(await db.all("SELECT vote FROM assistant_feedback")).toEqual([]);
    await db.close();
  });
});
