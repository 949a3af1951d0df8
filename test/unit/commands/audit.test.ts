import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { AccessPolicy } from "../../../src/access/types.ts";
import { ManualClock } from "../../../src/clock.ts";
import { auditCsv, auditVerb, parseAuditFilter, parseSince } from "../../../src/commands/audit.ts";
import { silentLogger } from "../../../src/log.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import type { CommandContext } from "../../../src/verb-kit/types.ts";
import { FakePalette } from "../../support/fake-palette.ts";

const NOW = Date.UTC(2026, 10, 25, 12);
const HOUR = 3_600_000;

describe("parseSince", () => {
  it.each([
    ["24h", NOW - 24 * HOUR],
    ["90m", NOW - 90 * 60_000],
    ["7d", NOW - 7 * 24 * HOUR],
    ["2W", NOW - 14 * 24 * HOUR],
    ["2026-11-01", Date.UTC(2026, 10, 1)],
    ["2026-11-01T10:30:00Z", Date.UTC(2026, 10, 1, 10, 30)],
  ])("%s", (text, expected) => {
    expect(parseSince(text, NOW)).toBe(expected);
  });

  it.each(["yesterday", "7", "2026-13-45", "d7", "1y"])("%s is not a time", (text) => {
    expect(parseSince(text, NOW)).toBeUndefined();
  });
});

describe("parseAuditFilter", () => {
  it("reads until and user:<email> (Palette's side, issue 27)", () => {
    expect(parseAuditFilter(["user:eddie@example.com", "since", "7d", "until", "1d"], NOW)).toEqual(
      {
        kind: "ok",
        since: NOW - 7 * 24 * HOUR,
        until: NOW - 24 * HOUR,
        email: "eddie@example.com",
      },
    );
    expect(parseAuditFilter(["since", "1d", "until", "7d"], NOW)).toMatchObject({
      kind: "problem",
    });
    expect(parseAuditFilter(["until", "soon"], NOW)).toMatchObject({ kind: "problem" });
  });

  const filter = (text: string) => parseAuditFilter(parse(`audit ${text}`).args, NOW);

  it("defaults to the last 7 days of everything", () => {
    expect(filter("")).toEqual({ kind: "ok", since: NOW - 7 * 24 * HOUR });
  });

  it("a cluster, a mention or a user ID, with or without since", () => {
    expect(filter("prod-1 since 24h")).toEqual({
      kind: "ok",
      since: NOW - 24 * HOUR,
      cluster: "prod-1",
    });
    expect(filter("since 1d <@U0123ABCD|alice>")).toMatchObject({ userId: "U0123ABCD" });
    expect(filter("@W0123ABCD")).toMatchObject({ userId: "W0123ABCD" });
  });

  it.each([
    ["since", "since when"],
    ["since soon", "not a time"],
    ["since 2099-01-01", "future"],
    ["a b", "One cluster or one person"],
    ["@alice", "picking them"],
  ])("%s: a clear problem", (text, says) => {
    const result = filter(text);
    expect(result.kind).toBe("problem");
    expect(result.kind === "problem" && result.problem).toContain(says);
  });
});

describe("auditCsv", () => {
  it("writes the columns in order and escapes what people typed", () => {
    const csv = auditCsv([
      {
        at: "2026-11-25T12:00:00.000Z",
        userId: "W1",
        action: "change",
        target: "scale =cmd",
        outcome: "accepted",
        step: "answer",
        changeId: 3,
        clusterUid: "c",
        projectUid: "p",
        requester: "W1",
        approver: "W2",
        paletteUser: "@vera",
        detail: '{"a":1}',
      },
    ]);
    const [header, row, end] = csv.split("\r\n");
    expect(header).toBe(
      "source,at,action,step,outcome,user,target,change_id,cluster_uid,project_uid,requester,approver,palette_user,detail",
    );
    expect(row).toContain(
      `bot,2026-11-25T12:00:00.000Z,change,answer,accepted,W1,scale =cmd,3,c,p,W1,W2,'@vera,"{""a"":1}"`,
    );
    expect(end).toBe("");
  });
});

describe("/palette audit", () => {
  async function context(allowed: boolean) {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock(NOW);
    const audit = new AuditLog(db, clock);
    const policy: AccessPolicy = {
      allows: async (_user, permission) => allowed && permission === "audit",
      grantHint: () => "Ask an admin to add you to `ALLOW_AUDIT`.",
    };
    const ctx: CommandContext = {
      // Palette knows no cluster prod-1: its side of the export is empty, and says why
      palette: new FakePalette([]),
      db,
      audit,
      policy,
      clock,
      logger: silentLogger,
      projects: [],
      consoleUrl: "https://console.example.com/",
      requester: { userId: "W7", channelId: "C1" },
    };
    return { ctx, audit, db };
  }

  it("refuses someone not on ALLOW_AUDIT without reading the audit", async () => {
    const { ctx, audit, db } = await context(false);
    const find = vi.spyOn(audit, "page");
    const reply = await auditVerb.run(parse("audit since 7d"), ctx);
    expect(reply.kind).toBe("message");
    expect(JSON.stringify(reply)).toContain("ALLOW_AUDIT");
    expect(find).not.toHaveBeenCalled();
    const [row] = await audit.recent(1);
    expect(row).toMatchObject({ userId: "W7", action: "audit-export", outcome: "denied" });
    await db.close();
  });

  it("hands someone on it a CSV file of the rows asked for, and audits the export", async () => {
    const { ctx, audit, db } = await context(true);
    await audit.record({
      userId: "W1",
      action: "change",
      target: "scale prod-1",
      outcome: "created",
    });
    await audit.record({
      userId: "W1",
      action: "change",
      target: "scale other",
      outcome: "created",
    });
    const reply = await auditVerb.run(parse("audit prod-1 since 24h"), ctx);
    expect(reply.kind).toBe("file");
    if (reply.kind !== "file") return;
    expect(reply.fileName).toBe("palette-audit-prod-1-since-2026-11-24.csv");
    expect(reply.auditAs).toBe("audit-export");
    // the export is spooled to a private temporary file, deleted once delivered
    const file = reply.content;
    if (Buffer.isBuffer(file)) throw new Error("an audit export is spooled, not held in memory");
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file.path))).mode & 0o777).toBe(0o700);
    const lines = (await readFile(file.path, "utf8")).split("\r\n");
    await file.dispose();
    await expect(stat(dirname(file.path))).rejects.toThrow();
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("scale prod-1");
    expect(reply.notice.text).toContain("1 audit rows");
    expect(JSON.stringify(reply.notice.view)).toContain("Palette has no cluster prod-1");
    const [row] = await audit.recent(1);
    expect(row).toMatchObject({ action: "audit-export", outcome: "granted", target: "prod-1" });
    expect(JSON.parse(row!.detail!)).toMatchObject({ rows: 1 });
    await db.close();
  });
});
