import type { Dirent } from "node:fs";
import { readdir, stat, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditExportRoomPort, AuditRoomAnswer } from "../verb-kit/types.ts";

/**
 * Room for audit exports on this replica (issue 37, item 5). An export writes Palette's entries
 * to a spool, then the spool and the bot's rows into the file, both on the temp volume (the
 * chart gives /tmp 1 GiB), and waits on Palette up to ten minutes. So: at most `most` exports at
 * once (they do not take the command slots, src/slack/run-command.ts), and one is refused up front
 * when the temp volume's free space, less what the running exports may still write, cannot hold
 * the estimate of its largest size.
 */

/**
 * Bytes of CSV one of Palette's entries is estimated to take: the simulator's measure about
 * 230 (docs/benchmarks.md), Palette's own messages can be longer, hence the margin.
 */
export const PALETTE_ENTRY_BYTES = 320;
/** the same for one of the bot's rows (the simulator's bench: about 150) */
export const BOT_ROW_BYTES = 200;

/** how many exports may run at once on one replica */
export const MOST_EXPORTS_AT_ONCE = 2;

/**
 * The most an export may put on the temp volume: Palette's entries twice (the spool and the file
 * both exist while they are merged), the bot's rows once.
 */
export function estimateExportBytes(paletteEntries: number, botRows: number): number {
  return paletteEntries * PALETTE_ENTRY_BYTES * 2 + botRows * BOT_ROW_BYTES;
}

/** free bytes for an unprivileged writer on the file system holding `dir`; undefined if unknown */
export async function freeBytesOf(dir: string): Promise<number | undefined> {
  try {
    const fs = await statfs(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Bytes of the files under `dir` (the temp volume: what counts against its size limit); what
 * cannot be read (a file deleted meanwhile, another user's dir) counts 0.
 */
export async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    try {
      total += (await stat(join(entry.parentPath, entry.name))).size;
    } catch {
      // gone since the listing
    }
  }
  return total;
}

export class AuditExportRoom implements AuditExportRoomPort {
  /** the estimates of the exports running now */
  private readonly running = new Set<{ bytes: number }>();

  constructor(
    private readonly options: {
      most?: number;
      /** where the spools go: the OS's temp dir, read at each claim (TMPDIR) */
      dir?: () => string;
      freeBytes?: (dir: string) => Promise<number | undefined>;
      /**
       * AUDIT_TMP_BYTES: the volume's own size limit (the chart's /tmp emptyDir sizeLimit: the
       * kubelet evicts the pod past it, while statfs reports the node's whole disk)
       */
      limitBytes?: number;
      usedBytes?: (dir: string) => Promise<number>;
    } = {},
  ) {}

  /** the smaller of the disk's free space and what the volume's limit leaves; undefined if unknown */
  private async freeBytes(dir: string): Promise<number | undefined> {
    const onDisk = await (this.options.freeBytes ?? freeBytesOf)(dir);
    const limit = this.options.limitBytes;
    if (limit === undefined) return onDisk;
    const left = Math.max(0, limit - (await (this.options.usedBytes ?? bytesUnder)(dir)));
    return onDisk === undefined ? left : Math.min(onDisk, left);
  }

  /** a place for an export of at most `neededBytes`; `release()` once its files are deleted */
  async claim(neededBytes: number): Promise<AuditRoomAnswer> {
    const most = this.options.most ?? MOST_EXPORTS_AT_ONCE;
    if (this.running.size >= most) return { kind: "busy", running: this.running.size };
    // counted before the statfs is awaited, so two claims at once cannot both pass the bound
    const claim = { bytes: neededBytes };
    this.running.add(claim);
    const dir = (this.options.dir ?? tmpdir)();
    const free = await this.freeBytes(dir);
    // unknown (statfs failed): the export goes on, a full disk then fails it cleanly
    if (free !== undefined) {
      let othersMayWrite = 0;
      for (const other of this.running) if (other !== claim) othersMayWrite += other.bytes;
      const room = free - othersMayWrite;
      if (room < neededBytes) {
        this.running.delete(claim);
        return { kind: "no-room", neededBytes, freeBytes: Math.max(0, room) };
      }
    }
    let released = false;
    return {
      kind: "granted",
      release: () => {
        if (released) return;
        released = true;
        this.running.delete(claim);
      },
    };
  }
}

/** one per process: "per replica" */
export const auditExportRoom = new AuditExportRoom();
