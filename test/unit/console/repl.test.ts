import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { commandText, runConsole } from "../../../src/console/repl.ts";
import {
  denyAll,
  FakePalette,
  PROJECT,
  sampleFleet,
  testContext,
} from "../../support/fake-palette.ts";

async function run(lines: string[], extra: Partial<Parameters<typeof runConsole>[0]> = {}) {
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (chunk) => chunks.push(String(chunk)));
  const { requester: _requester, ...deps } = await testContext({
    palette: new FakePalette(sampleFleet()),
    policy: denyAll(),
  });
  await runConsole({ input: Readable.from([lines.join("\n")]), output, deps, ...extra });
  return chunks.join("");
}

describe("console", () => {
  it("reads /palette lines and bare lines from a pipe and prints rendered replies", async () => {
    const out = await run(["/palette clusters", "cluster web-prod", "", "# a comment", "clustrs"]);
    expect(out).toContain("Clusters (5)");
    expect(out).toContain("web-prod\n========");
    expect(out).toContain("Did you mean `clusters`?");
  });

  it("lets the console user download a kubeconfig (allowAll) and writes it 0600", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palette-console-"));
    const out = await run(["kubeconfig web-prod"], { fileDir: dir });
    const path = join(dir, "web-prod.kubeconfig");
    expect(out).toContain(`kubeconfig written to ${path}`);
    expect(out).not.toContain("SECRET-TOKEN-123");
    expect(readFileSync(path, "utf8")).toContain("SECRET-TOKEN-123");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("hands files and modals to the callbacks when given", async () => {
    const files: string[] = [];
    let modals = 0;
    await run(["kubeconfig web-prod"], {
      onFile: async (reply) => void files.push(reply.fileName),
    });
    expect(files).toEqual(["web-prod.kubeconfig"]);
    const out = await run(["launch", "exit", "clusters"], {
      onModal: async () => {
        modals++;
      },
    });
    // `exit` ends the session before the last line
    expect(out).not.toContain("Clusters (");
    // the console user passes the launch policy, so launch asks for the form
    expect(modals).toBe(1);
    expect(await run(["launch"])).toContain("needs the launch form");
  });

  it("answers an @Palette line as a mention would, and the short help to one it cannot read", async () => {
    const out = await run([
      "@Palette cluster web-prod",
      "@palette is it everything a river should be?",
    ]);
    expect(out).toContain("goes to the mention's thread");
    expect(out).toContain("web-prod\n========");
    expect(out).toContain("did not catch a command");
  });

  it("shows what a pasted console link would unfurl to, and says when it would not", async () => {
    const cluster = `https://console.example.com/projects/${PROJECT}/clusters/c0000000000000000000001a/overview`;
    const out = await run([cluster, "https://console.example.com/admin/settings"]);
    expect(out).toContain("unfurls under the message");
    expect(out).toContain("web-prod");
    expect(out).toContain("Nodes");
    expect(out).toContain("would not unfurl");
  });

  it("strips the /palette prefix", () => {
    expect(commandText("/palette clusters dev")).toBe("clusters dev");
    expect(commandText("palette")).toBe("");
    expect(commandText("  ")).toBeUndefined();
    expect(commandText("nodes x")).toBe("nodes x");
  });
});
