import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { kubeconfigFileName, kubeconfigVerb } from "../../../src/commands/kubeconfig.ts";
import { createLogger } from "../../../src/log.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { denyAll, FakePalette, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { blocksText, rendered } from "../../support/reply-text.ts";

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger("debug", stream), lines };
}

describe("kubeconfig", () => {
  it("returns the file for the requester's DMs and audits the grant without content", async () => {
    const { logger, lines } = capturingLogger();
    const ctx = { ...(await testContext()), logger };
    const reply = await kubeconfigVerb.run(parse("kubeconfig web-prod"), ctx);
    expect(reply.kind).toBe("file");
    if (reply.kind !== "file") return;
    expect(reply.fileName).toBe("web-prod.kubeconfig");
    expect(reply.content.toString()).toContain("SECRET-TOKEN-123");
    expect(reply.notice.visibility).toBe("ephemeral");
    expect(blocksText(rendered(reply.notice).blocks)).toContain("sent to your DMs");
    const [record] = await ctx.audit.recent();
    expect(record).toMatchObject({
      userId: "U123",
      action: "kubeconfig",
      target: "web-prod",
      outcome: "granted",
    });
    expect(record?.detail).not.toContain("SECRET");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.join("")).toContain("kubeconfig request");
    expect(lines.join("")).not.toContain("SECRET-TOKEN-123");
  });

  it("refuses with the grant hint and audits the denial, without asking Palette", async () => {
    const palette = new FakePalette(sampleFleet());
    const ctx = await testContext({
      palette,
      policy: denyAll("ask an admin to add you to ALLOW_KUBECONFIG"),
    });
    const reply = await kubeconfigVerb.run(parse("kubeconfig web-prod"), ctx);
    expect(reply.kind).toBe("message");
    if (reply.kind !== "message") return;
    expect(reply.visibility).toBe("ephemeral");
    expect(blocksText(rendered(reply).blocks)).toContain("ALLOW_KUBECONFIG");
    expect((await ctx.audit.recent())[0]).toMatchObject({ outcome: "denied", target: "web-prod" });
    expect(palette.calls).toHaveLength(0);
  });

  it("audits a failure and lets the error reach the dispatcher", async () => {
    const palette = new FakePalette(sampleFleet());
    palette.failOn(
      "getKubeconfig",
      new PaletteError(
        "forbidden",
        403,
        undefined,
        "no",
        undefined,
        "GET /v1/spectroclusters/{uid}/assets/kubeconfig",
      ),
    );
    const ctx = await testContext({ palette });
    await expect(kubeconfigVerb.run(parse("kubeconfig web-prod"), ctx)).rejects.toThrow(
      PaletteError,
    );
    expect((await ctx.audit.recent())[0]).toMatchObject({ outcome: "failed" });
  });

  it("audits an unknown cluster as failed", async () => {
    const ctx = await testContext();
    const reply = await kubeconfigVerb.run(parse("kubeconfig nope"), ctx);
    expect(reply.kind).toBe("message");
    expect((await ctx.audit.recent())[0]).toMatchObject({ outcome: "failed", target: "nope" });
  });

  it("makes a safe file name of any cluster name", () => {
    expect(kubeconfigFileName("<!channel>/../x")).toBe("__channel__.._x.kubeconfig");
    expect(kubeconfigFileName("..")).toBe("_.kubeconfig");
    expect(kubeconfigFileName("")).toBe("cluster.kubeconfig");
  });
});
