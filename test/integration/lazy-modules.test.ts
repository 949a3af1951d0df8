import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Modules a bot does not need stay unloaded (issue 31 item 14, the 120 MB budget at 50,000
 * clusters): the AI SDK (`ai`, `@ai-sdk/*`, several MB of heap) without ASSISTANT_PROVIDER, and
 * the PostgreSQL driver (`pg`) on a SQLite store. Watched from outside, in a node of its own (a
 * module once loaded by this test runner would stay loaded), through Node's resolve hook: every
 * module the process resolves is written to a file, and the paths asked about are counted.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "sdk-loading-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// runs off the main thread (module.register): appends each resolved URL to the file it was given
const HOOKS = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + "\\n");
  return resolved;
}`;

const SDK = /\/node_modules\/(ai|@ai-sdk\/[^/]+)\//;
const PG = /\/node_modules\/pg\//;

/**
 * Runs `body` (ES module code; `src(path)` imports a source file) and returns the modules it
 * loaded whose URL matches `wanted`.
 */
function loadedBy(name: string, body: string, wanted = SDK): { sdk: string[]; output: string } {
  const file = join(dir, `${name}.txt`);
  const script = `
import { register } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(file)}, "");
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), {
  data: { file: ${JSON.stringify(file)} },
});
const src = (path) => import(new URL(path, ${JSON.stringify(`${pathToFileURL(ROOT).href}/`)}).href);
${body}
const urls = readFileSync(${JSON.stringify(file)}, "utf8").split("\\n");
console.log(JSON.stringify(urls.filter((url) => ${wanted}.test(url))));
`;
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx/esm", "--input-type=module", "-e", script],
    { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
  );
  const output = `${run.stdout}${run.stderr}`;
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  if (run.status !== 0 || !last.startsWith("[")) {
    throw new Error(`the probe failed (${run.status}):\n${output}`);
  }
  return { sdk: JSON.parse(last) as string[], output };
}

describe("the AI SDK loads only with the assistant configured", () => {
  it("not when the bot, the console and the demo are loaded, nor when the assistant is unset", () => {
    const { sdk } = loadedBy(
      "off",
      `
await src("src/app/bot.ts");
await src("src/app/console.ts");
await src("src/app/demo.ts");
const { buildAssistant } = await src("src/app/assistant.ts");
const none = await buildAssistant({ config: undefined, deps: {} });
if (none !== undefined) throw new Error("an assistant without ASSISTANT_PROVIDER");
`,
    );
    expect(sdk).toEqual([]);
  }, 90_000);

  it("when ASSISTANT_PROVIDER is set (the probe sees the SDK when it is there)", () => {
    const { sdk } = loadedBy(
      "on",
      `
const { buildAssistant } = await src("src/app/assistant.ts");
const assistant = await buildAssistant({
  config: {
    provider: "openai-compatible",
    baseUrl: "http://127.0.0.1:9/v1",
    model: "scripted",
    maxToolCalls: 8,
    tokenBudget: 16000,
    perUserPerHour: 60,
    timeoutMs: 30000,
    historyDays: 1,
    auditText: false,
  },
  deps: { db: {}, clock: { now: () => new Date() } },
});
if (typeof assistant?.ask !== "function") throw new Error("no assistant with ASSISTANT_PROVIDER");
`,
    );
    expect(sdk.some((url) => /\/node_modules\/ai\//.test(url))).toBe(true);
    expect(sdk.some((url) => /\/node_modules\/@ai-sdk\/openai-compatible\//.test(url))).toBe(true);
  }, 90_000);
});

describe("the PostgreSQL driver loads only for a PostgreSQL store", () => {
  it("not when a SQLite store is opened", () => {
    const { sdk: pg } = loadedBy(
      "sqlite",
      `
await src("src/app/bot.ts");
const { openStore } = await src("src/store/open.ts");
const db = await openStore({ kind: "sqlite", path: ":memory:" });
await db.get("SELECT 1 AS one");
await db.close();
`,
      PG,
    );
    expect(pg).toEqual([]);
  }, 90_000);

  it("when a PostgreSQL store is asked for (the probe sees pg when it is there)", () => {
    const { sdk: pg } = loadedBy(
      "postgres",
      `
const { openStore } = await src("src/store/open.ts");
const { Secret } = await src("src/secret.ts");
// nothing listens on port 9: the open fails, after the driver was loaded
await openStore({ kind: "postgres", url: new Secret("postgres://u:p@127.0.0.1:9/db") }).then(
  (db) => db.close(),
  () => {},
);
`,
      PG,
    );
    expect(pg.length).toBeGreaterThan(0);
  }, 90_000);
});
