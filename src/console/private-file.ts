import { randomBytes } from "node:crypto";
import { rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes a credential (a kubeconfig) so only its owner can read it, whatever was at `path` before:
 * the bytes go to a new file created exclusively with mode 0600 beside it, which then replaces
 * `path`. An old file keeps neither its mode nor its content, and a symlink planted at `path` is
 * replaced, never followed.
 */
export async function writePrivateFile(
  path: string,
  content: Buffer | AsyncIterable<Uint8Array>,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(temporary, content, { mode: 0o600, flag: "wx" });
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
