import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { AssistantTurnStore, HISTORY_TURNS } from "../../../src/store/assistant-turns.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";

const DAY = 86_400_000;

describe("AssistantTurnStore", () => {
  it("keeps a turn's read grounds apart from its read text, cut only at whole lines", async () => {
    const db = await openSqlite(":memory:");
    const turns = new AssistantTurnStore(db, new ManualClock(), 7 * DAY);
    const long = Array.from({ length: 2_000 }, (_, i) => `web-prod-${i}`).join("\n");
    const id = await turns.add({
      conversation: "C1:1.1",
      userId: "U1",
      question: "q",
      answer: "a",
      readText: "[clusters tag:ghost-prod-9]\nNo cluster carries that tag.",
      readGrounds: long,
    });
    const [turn] = await turns.history("C1:1.1", "U1");
    expect(turn!.readText).toContain("ghost-prod-9");
    const lines = turn!.readGrounds.split("\n");
    expect(lines.length).toBeGreaterThan(100);
    expect(long.split("\n").slice(0, lines.length)).toEqual(lines);
    expect((await turns.turnOf(id, "U1"))!.readGrounds).toBe(turn!.readGrounds);
  });

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
    const history = await turns.history("C1:1.1", "U1");
    expect(history.map((turn) => turn.question)).toEqual(
      Array.from({ length: HISTORY_TURNS }, (_, i) => `q${i + 2}`),
    );
    clock.advance(8 * DAY);
    expect(await turns.history("C1:1.1", "U1")).toEqual([]);
    expect(await turns.prune()).toBe(HISTORY_TURNS + 3);
    await db.close();
  });

  it("gives each person only their own turns, and starts anew after a quiet pause", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock();
    const turns = new AssistantTurnStore(db, clock, 7 * DAY);
    const add = (userId: string, question: string) =>
      turns.add({ conversation: "D1:dm", userId, question, answer: "a", readText: "r" });
    await add("U1", "first");
    await add("U2", "someone else's");
    clock.advance(2 * 3_600_000);
    await add("U1", "second");
    clock.advance(30 * 60_000);
    await add("U1", "third");
    const mine = await turns.history("D1:dm", "U1");
    expect(mine.map((turn) => turn.question)).toEqual(["first", "second", "third"]);
    // an hour's pause before "second": the conversation starts there
    const recent = await turns.history("D1:dm", "U1", { quietMs: 3_600_000 });
    expect(recent.map((turn) => turn.question)).toEqual(["second", "third"]);
    clock.advance(61 * 60_000);
    expect(await turns.history("D1:dm", "U1", { quietMs: 3_600_000 })).toEqual([]);
    expect((await turns.history("D1:dm", "U2")).map((turn) => turn.question)).toEqual([
      "someone else's",
    ]);
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
