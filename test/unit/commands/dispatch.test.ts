import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { dispatch, VERBS } from "../../../src/registry/dispatch.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { FakePalette, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";

describe("dispatch", () => {
  it("answers empty text with help listing every verb", async () => {
    const reply = asMessage(await dispatch("", await testContext()));
    const text = blocksText(reply.blocks);
    for (const verb of VERBS) expect(text).toContain(`/palette ${verb.name}`);
    expect(reply.visibility).toBe("ephemeral");
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("suggests the verb a typo meant", async () => {
    const reply = asMessage(await dispatch("clustrs dev", await testContext()));
    const text = blocksText(reply.blocks);
    expect(text).toContain("Did you mean `clusters`?");
    expect(text).toContain("Usage");
  });

  it("escapes an unknown verb that tries to ping", async () => {
    const reply = asMessage(await dispatch("<!channel>", await testContext()));
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
    expect(reply.text).not.toContain("<!channel>");
  });

  it("gives a usage answer for project: alone", async () => {
    const reply = asMessage(await dispatch("clusters project:", await testContext()));
    const text = blocksText(reply.blocks);
    expect(text).toContain("needs a project UID");
    expect(text).toContain("/palette clusters");
  });

  it("refuses unknown flags of its verbs", async () => {
    const reply = asMessage(await dispatch("nodes web-prod --share", await testContext()));
    expect(blocksText(reply.blocks)).toContain("no option --share");
  });

  it("turns a thrown Palette error into a clear ephemeral message and logs it without secrets", async () => {
    const lines: string[] = [];
    const logger = createLogger(
      "debug",
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const palette = new FakePalette(sampleFleet());
    palette.failOn(
      "searchClusters",
      new PaletteError(
        "unauthorized",
        401,
        "AuthFailed",
        "token rejected",
        "ref-9",
        "POST /v1/dashboard/spectroclusters/search",
      ),
    );
    const reply = asMessage(
      await dispatch("clusters", { ...(await testContext({ palette })), logger }),
    );
    expect(reply.visibility).toBe("ephemeral");
    expect(blocksText(reply.blocks)).toContain("PALETTE_API_KEY");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.join("")).toContain("command failed");
    expect(lines.join("")).toContain("ref-9");
  });

  it("survives a non-Palette exception", async () => {
    const palette = new FakePalette(sampleFleet());
    palette.failOn("searchClusters", new TypeError("boom"));
    const reply = asMessage(await dispatch("clusters", await testContext({ palette })));
    expect(blocksText(reply.blocks)).toContain("Something went wrong on our side");
  });

  it("accepts aliases and help for one verb", async () => {
    expect(blocksText(asMessage(await dispatch("ls", await testContext())).blocks)).toContain(
      "Clusters",
    );
    const help = blocksText(asMessage(await dispatch("help nodes", await testContext())).blocks);
    expect(help).toContain("/palette nodes");
    expect(help).not.toContain("/palette kubeconfig");
  });

  it("routes launch to its verb", async () => {
    const reply = await dispatch("launch", await testContext());
    expect(["modal", "message"]).toContain(reply.kind);
  });
});

describe("dispatch's last check", () => {
  it("replaces a reply Slack would refuse with a clear error", async () => {
    const clusters = VERBS.find((verb) => verb.name === "clusters")!;
    const original = clusters.run;
    clusters.run = async () => ({
      kind: "message",
      visibility: "ephemeral",
      text: "x",
      view: { screen: "notice", data: { mrkdwn: "<!channel> hi" } },
    });
    try {
      const reply = asMessage(await dispatch("clusters", await testContext()));
      expect(blocksText(reply.blocks)).toContain("could not fit that answer");
      expect(checkSlackLimits(reply.blocks)).toEqual([]);
    } finally {
      clusters.run = original;
    }
  });
});
