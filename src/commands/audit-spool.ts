import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, open, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import type { SpooledFile } from "../verb-kit/types.ts";

/**
 * An audit export written to disk as it is read (issue 31, item 19): AUDIT_EXPORT_MAX may be
 * 1,000,000 of Palette's entries, some 300 MB of CSV, far past the bot's 120 MB budget if held
 * in memory. Palette's entries are appended to a spool file in the order Palette pages them, and
 * only their time, offset and length are kept (20 bytes an entry, 20 MB at the maximum); then
 * the export file is written in time order, the bot's rows (paged from the store oldest first)
 * merged with the spooled entries read back one by one. Both files live in a directory of their
 * own made by mkdtemp (mode 0700, under the OS's temp dir: /tmp in the image), the files 0600:
 * an export names people, so no other local user reads it. `dispose()` deletes the directory.
 *
 * A write can fail (a full disk: ENOSPC) when no write is awaited; a stream's `'error'` with no
 * listener ends the process, so each stream has one from its creation (issue 37, item 5), and the
 * next write or the close throws the stream's error: the export fails, the bot goes on.
 */

const SPOOL_PREFIX = "palette-audit-";

/** opens one of the export's files for writing; tests pass one that writes to /dev/full */
export type OpenForWrite = (path: string) => WriteStream;

const openPrivate: OpenForWrite = (path) => createWriteStream(path, { mode: 0o600, flags: "wx" });

/**
 * Deletes the spool directories a process that died mid-export left behind (a container restarted
 * in its pod keeps its /tmp): those older than `maxAgeMs`, so an export still running in this
 * process (ten minutes at most for Palette's side, then the upload) is left alone. Returns how many.
 */
export async function sweepStaleSpools(
  now: number,
  maxAgeMs = 6 * 3_600_000,
  parent: string = tmpdir(),
): Promise<number> {
  let swept = 0;
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith(SPOOL_PREFIX)) continue;
    const path = join(parent, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory() || now - info.mtimeMs < maxAgeMs) continue;
    await rm(path, { recursive: true, force: true });
    swept += 1;
  }
  return swept;
}

/** one record of the file, ready to write (CRLF-ended), and when it happened (epoch ms) */
export interface TimedRecord {
  at: number;
  record: string;
}

export class AuditSpool {
  private times = new Float64Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private count = 0;
  private spooledBytes = 0;
  private disposed = false;

  private constructor(
    private readonly dir: string,
    private readonly spool: WriteStream,
    private readonly openForWrite: OpenForWrite,
  ) {}

  static async create(
    parent: string = tmpdir(),
    openForWrite: OpenForWrite = openPrivate,
  ): Promise<AuditSpool> {
    const dir = await mkdtemp(join(parent, SPOOL_PREFIX));
    const spool = guarded(openForWrite(join(dir, "palette.part")));
    return new AuditSpool(dir, spool, openForWrite);
  }

  /** how many of Palette's entries are spooled */
  get entries(): number {
    return this.count;
  }

  /** appends one of Palette's entries; `at` orders it in the file */
  async addPalette(entry: TimedRecord): Promise<void> {
    if (this.count === this.times.length) this.grow();
    const bytes = Buffer.byteLength(entry.record);
    this.times[this.count] = entry.at;
    this.offsets[this.count] = this.spooledBytes;
    this.lengths[this.count] = bytes;
    this.count += 1;
    this.spooledBytes += bytes;
    await write(this.spool, entry.record);
  }

  /**
   * Writes the export: `header`, then the bot's rows and Palette's entries by time (on a tie the
   * bot's row first, as it was written first), then `trailer()`'s records, asked for once the
   * rows are written so it can say where they stopped. The spool is deleted as soon as it is read.
   */
  async finish(
    header: string,
    botRows: AsyncIterable<TimedRecord>,
    trailer: () => string[],
  ): Promise<SpooledFile> {
    await closeStream(this.spool);
    const order = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) order[i] = i;
    const times = this.times;
    order.sort((a, b) => times[a]! - times[b]! || a - b);
    const path = join(this.dir, "export.csv");
    const out = guarded(this.openForWrite(path));
    const spooled = await open(join(this.dir, "palette.part"), "r");
    let next = 0;
    const emitPalette = async () => {
      const index = order[next++]!;
      const length = this.lengths[index]!;
      // a buffer of its own: the stream may still hold the previous one when this is read
      const chunk = Buffer.allocUnsafe(length);
      await spooled.read(chunk, 0, length, this.offsets[index]!);
      await write(out, chunk);
    };
    try {
      await write(out, header);
      for await (const row of botRows) {
        while (next < order.length && times[order[next]!]! < row.at) await emitPalette();
        await write(out, row.record);
      }
      while (next < order.length) await emitPalette();
      for (const record of trailer()) await write(out, record);
      await closeStream(out);
    } catch (error) {
      out.destroy();
      throw error;
    } finally {
      await spooled.close();
      await rm(join(this.dir, "palette.part"), { force: true });
    }
    const { size } = await stat(path);
    return { kind: "spooled", path, byteLength: size, dispose: () => this.dispose() };
  }

  /** deletes the directory and all in it; safe to call more than once */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.spool.destroy();
    await rm(this.dir, { recursive: true, force: true });
  }

  private grow(): void {
    const size = this.times.length * 2;
    const times = new Float64Array(size);
    times.set(this.times);
    const offsets = new Float64Array(size);
    offsets.set(this.offsets);
    const lengths = new Uint32Array(size);
    lengths.set(this.lengths);
    this.times = times;
    this.offsets = offsets;
    this.lengths = lengths;
  }
}

/**
 * A stream whose `'error'` is kept (in `errored`, for the next write or the close to throw)
 * rather than thrown at the event loop, which would end the process.
 */
function guarded(stream: WriteStream): WriteStream {
  stream.on("error", () => undefined);
  return stream;
}

/**
 * Waits for the stream to drain when its buffer is full, so memory holds one buffer at most.
 * Throws the stream's error, whether it came before this write or while waiting for the drain.
 */
async function write(stream: WriteStream, chunk: string | Buffer): Promise<void> {
  if (stream.errored) throw stream.errored;
  if (!stream.write(chunk)) await once(stream, "drain");
}

/** ends the stream and waits until all of it is on disk; throws the stream's error */
async function closeStream(stream: WriteStream): Promise<void> {
  if (stream.errored) throw stream.errored;
  if (stream.closed) return;
  stream.end();
  await finished(stream);
}
