import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AuditExportRoom,
  BOT_ROW_BYTES,
  estimateExportBytes,
  PALETTE_ENTRY_BYTES,
} from "../../../src/commands/audit-room.ts";

const MB = 1_000_000;

/** a room on a volume with `free` bytes free, and the dirs it was asked about */
function roomWith(free: number | undefined, most = 2) {
  const asked: string[] = [];
  const room = new AuditExportRoom({
    most,
    dir: () => "/spool-volume",
    freeBytes: async (dir) => {
      asked.push(dir);
      return free;
    },
  });
  return { room, asked };
}

describe("AuditExportRoom (issue 37, item 5)", () => {
  it("estimates Palette's entries twice (spool and file at the merge) and the bot's rows once", () => {
    expect(estimateExportBytes(1_000, 10)).toBe(
      1_000 * PALETTE_ENTRY_BYTES * 2 + 10 * BOT_ROW_BYTES,
    );
    // the largest allowed (AUDIT_EXPORT_MAX 1,000,000 and 50,000 rows) fits the chart's 1 GiB once
    expect(estimateExportBytes(1_000_000, 50_000)).toBeLessThan(1024 ** 3);
    expect(2 * estimateExportBytes(1_000_000, 50_000)).toBeGreaterThan(1024 ** 3);
  });

  it("grants two at once, answers busy to the third, and has room again after a release", async () => {
    const { room } = roomWith(10_000 * MB);
    const first = await room.claim(MB);
    const second = await room.claim(MB);
    expect(first.kind).toBe("granted");
    expect(second.kind).toBe("granted");
    expect(await room.claim(MB)).toEqual({ kind: "busy", running: 2 });
    if (first.kind === "granted") {
      first.release();
      first.release(); // twice is once
    }
    expect((await room.claim(MB)).kind).toBe("granted");
    expect(await room.claim(MB)).toEqual({ kind: "busy", running: 2 });
  });

  it("refuses up front when the temp volume's free space cannot hold the estimate", async () => {
    const { room, asked } = roomWith(50 * MB);
    expect(await room.claim(60 * MB)).toEqual({
      kind: "no-room",
      neededBytes: 60 * MB,
      freeBytes: 50 * MB,
    });
    expect(asked).toEqual(["/spool-volume"]);
    // a refusal holds no place: one that fits is granted
    expect((await room.claim(40 * MB)).kind).toBe("granted");
  });

  it("counts what a running export may still write against the next one", async () => {
    const { room } = roomWith(100 * MB);
    expect((await room.claim(60 * MB)).kind).toBe("granted");
    expect(await room.claim(60 * MB)).toEqual({
      kind: "no-room",
      neededBytes: 60 * MB,
      freeBytes: 40 * MB,
    });
  });

  it("two claims at once cannot both pass the bound while the free space is read", async () => {
    const { room } = roomWith(10_000 * MB, 1);
    const answers = await Promise.all([room.claim(MB), room.claim(MB)]);
    expect(answers.map((a) => a.kind).sort()).toEqual(["busy", "granted"]);
  });

  it("lets the export go on when the free space cannot be read (a full disk then fails it cleanly)", async () => {
    const { room } = roomWith(undefined);
    expect((await room.claim(10_000 * MB)).kind).toBe("granted");
  });

  it("a volume with a size limit (AUDIT_TMP_BYTES): the limit less what is on it, not the node's disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "audit-room-limit-"));
    try {
      // another export's spool, 6 MB, one level down, as audit-spool.ts makes them
      mkdirSync(join(dir, "palette-audit-x"));
      writeFileSync(join(dir, "palette-audit-x", "palette.csv"), Buffer.alloc(6 * MB));
      // the node's disk has plenty (statfs, real): only the 10 MB limit can refuse
      const room = new AuditExportRoom({ dir: () => dir, limitBytes: 10 * MB });
      expect(await room.claim(5 * MB)).toEqual({
        kind: "no-room",
        neededBytes: 5 * MB,
        freeBytes: 4 * MB,
      });
      expect((await room.claim(3 * MB)).kind).toBe("granted");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the disk's free space still counts when it is the smaller", async () => {
    const room = new AuditExportRoom({
      dir: () => "/spool-volume",
      freeBytes: async () => 2 * MB,
      limitBytes: 1_000 * MB,
      usedBytes: async () => 0,
    });
    expect(await room.claim(3 * MB)).toEqual({
      kind: "no-room",
      neededBytes: 3 * MB,
      freeBytes: 2 * MB,
    });
  });
});
