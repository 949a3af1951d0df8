import { statfs } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/**
 * SQLite on a network file system is refused at start (issue 37, item 6). Its locks are POSIX
 * advisory locks, which NFS and SMB/CIFS keep loosely or not at all, and a WAL file's index is
 * shared memory, which only processes of one host share: two replicas on an NFS or any RWX volume
 * can both lead, and the file can be corrupted. `statfs` names the file system by its magic number
 * (Linux's f_type, statfs(2)); those below are network or cluster file systems.
 *
 * FUSE (0x65735546) is not refused: it is also how Docker Desktop shares a local folder; sshfs,
 * s3fs, gcsfuse and the like are FUSE too and are just as unsafe (docs/install.md says so).
 */
export const NETWORK_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, "NFS"],
  [0x517b, "SMB"],
  [0xff534d42, "CIFS"],
  [0xfe534d42, "SMB2"],
  [0x00c36400, "CephFS"],
  [0x0bd00bd0, "Lustre"],
  [0x5346414f, "AFS"],
  [0x6b414653, "kAFS"],
  [0x47504653, "GPFS"],
]);

export class SqliteOnNetworkFileSystem extends Error {
  override readonly name = "SqliteOnNetworkFileSystem";

  constructor(path: string, fileSystem: string) {
    super(
      `STATE_DB ${path} is on ${fileSystem}, a network file system: SQLite's locks and its WAL's shared memory do not hold there, so two replicas could both lead and the file could be corrupted. Put STATE_DB on a local volume (ReadWriteOnce), or set DATABASE_URL (PostgreSQL) for a shared store`,
    );
  }
}

/** the network file system's name when `type` (statfs f_type) is one, else undefined */
export function networkFileSystem(type: number): string | undefined {
  // f_type is unsigned; a signed read of CIFS's 0xFF534D42 would be negative
  return NETWORK_FILE_SYSTEMS.get(type >>> 0);
}

/**
 * Throws SqliteOnNetworkFileSystem when the folder of the SQLite file `path` is on a network
 * file system. A folder not made yet (the store makes it) is judged by the nearest one above it
 * that is; one statfs cannot read at all is left to SQLite's own open to report.
 */
export async function refuseNetworkSqlite(
  path: string,
  typeOf: (dir: string) => Promise<number> = async (dir) => (await statfs(dir)).type,
): Promise<void> {
  let dir = dirname(resolve(path));
  for (;;) {
    try {
      const fileSystem = networkFileSystem(await typeOf(dir));
      if (fileSystem) throw new SqliteOnNetworkFileSystem(path, fileSystem);
      return;
    } catch (error) {
      if (error instanceof SqliteOnNetworkFileSystem) throw error;
      const above = dirname(dir);
      if (above === dir) return;
      dir = above;
    }
  }
}
