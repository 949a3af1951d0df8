import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runConsole } from "../../../src/console/repl.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { denyAll, testContext } from "../../support/fake-palette.ts";

describe("console: digest", () => {
  it("`digest now` previews the console channel's digest; the operator may set one", async () => {
    const { requester: _requester, ...deps } = await testContext({ policy: denyAll() });
    await new SubscriptionStore(deps.db, deps.clock).add({
      channel: "console",
      kind: "all",
      createdBy: "console",
    });
    await new SnapshotStore(deps.db).replace(
      "p1",
      new Map(),
      [{ uid: "a", name: "web", project: "p1", state: "Running", health: "Healthy", tags: [] }],
      "2026-01-01T00:00:00.000Z",
    );
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on("data", (chunk) => chunks.push(String(chunk)));
    await runConsole({
      input: Readable.from(["digest now\ndigest daily 09:00\ndigest"]),
      output,
      deps,
    });
    const out = chunks.join("");
    expect(out).toContain("Digest preview: 1 clusters");
    expect(out).toContain("By project");
    expect(out).toContain("set this channel's digest: daily at 09:00 (UTC)");
    expect(out).toContain("This channel's digest: daily at 09:00 (UTC)");
  });
});
