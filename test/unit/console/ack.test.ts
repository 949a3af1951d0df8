import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runConsole } from "../../../src/console/repl.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { AckStore } from "../../../src/store/acks.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { testContext } from "../../support/fake-palette.ts";

const payload = (uid: string, name: string): CardPayload => ({
  cluster: { uid, name, project: "p1", state: "Running", health: "UnHealthy", tags: [] },
  previous: { state: "Running", health: "Healthy" },
  kinds: ["health-lost"],
  lines: ["Health lost: Healthy → UnHealthy"],
  worse: true,
  alerts: [],
  at: "2026-01-01T00:00:00.000Z",
});

async function run(lines: string[]) {
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (chunk) => chunks.push(String(chunk)));
  const { requester: _requester, ...deps } = await testContext();
  const cards = new CardStore(deps.db);
  // what the demo's sender left behind: cards in the console's notification channel
  await cards.put(
    { channel: "console", clusterUid: "u1", ts: "1.1", payload: payload("u1", "web-prod") },
    "t",
  );
  await cards.put(
    { channel: "console", clusterUid: "u2", ts: "1.2", payload: payload("u2", "twin") },
    "t",
  );
  await cards.put(
    { channel: "console", clusterUid: "u3", ts: "1.3", payload: payload("u3", "twin") },
    "t",
  );
  await cards.put(
    { channel: "C9", clusterUid: "u4", ts: "1.4", payload: payload("u4", "elsewhere") },
    "t",
  );
  await runConsole({ input: Readable.from([lines.join("\n")]), output, deps });
  return { out: chunks.join(""), acks: new AckStore(deps.db), audit: deps.audit };
}

describe("console: ack <cluster>", () => {
  it("acknowledges the cluster's card in the console's channel: the card is shown again and a thread line added", async () => {
    const { out, acks, audit } = await run(["ack web-prod"]);
    expect(out).toContain("✎ card updated");
    expect(out).toContain("👀 Acknowledged by console");
    expect(out).toMatch(/↳ thread\n\s+│ 👀 Acknowledged by console/);
    expect((await acks.get("console", "u1"))?.userId).toBe("console");
    expect((await audit.recent())[0]).toMatchObject({ action: "ack", outcome: "granted" });
  });

  it("a second ack says it is already acknowledged, and changes nothing", async () => {
    const { out } = await run(["ack web-prod", "ack WEB-PROD"]);
    expect(out.match(/card updated/g)).toHaveLength(1);
    expect(out).toMatch(/You acknowledged it/);
  });

  it("takes a UID, asks for one when a name is ambiguous, and says when there is no card", async () => {
    const { out, acks } = await run(["ack twin", "ack u3", "ack elsewhere", "ack"]);
    expect(out).toContain("2 cards are named twin");
    expect(await acks.get("console", "u2")).toBeUndefined();
    expect((await acks.get("console", "u3"))?.userId).toBe("console");
    expect(out).toContain("No notification card for elsewhere");
    expect(await acks.get("C9", "u4")).toBeUndefined();
    expect(out).toContain("Usage: ack <cluster>");
  });
});
