import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runConsole } from "../../../src/console/repl.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import { FakePalette, sampleFleet, testContext } from "../../support/fake-palette.ts";

describe("mute, unmute and mutes in the console", () => {
  it("mutes a cluster for the console channel, lists it, and unmutes it", async () => {
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on("data", (chunk) => chunks.push(String(chunk)));
    const { requester: _requester, ...deps } = await testContext({
      palette: new FakePalette(sampleFleet()),
    });
    const lines = ["mute web-prod 7d kernel upgrades", "mutes", "unmute web-prod", "mutes"];
    await runConsole({ input: Readable.from([lines.join("\n")]), output, deps });
    const out = chunks.join("");
    expect(out).toContain("muted web-prod in this channel until");
    expect(out).toContain("Mutes and snoozes in this channel (1)");
    expect(out).toContain("🔇 web-prod muted by console until");
    expect(out).toContain("kernel upgrades");
    expect(out).toContain("ended the mute of web-prod in this channel. Nothing changed meanwhile.");
    expect(out).toContain("No mutes or snoozes in this channel");
    expect(await new HoldStore(deps.db).list()).toEqual([]);
  });
});
