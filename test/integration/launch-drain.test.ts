import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PaletteError } from "../../src/palette/errors.ts";
import { LaunchStore } from "../../src/store/launches.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import {
  type LaunchHarness,
  type OpenView,
  startLaunchHarness,
  stateFor,
} from "../support/launch-harness.ts";

/** A submit slower than Slack's window keeps running after the answer; shutdown waits for it. */
describe("launch: slow submits and shutdown", () => {
  let h: LaunchHarness;
  let account: string;
  let profile: string;

  beforeAll(async () => {
    h = await startLaunchHarness();
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    account = (await h.suggest(form, "account", ""))[0]!.value;
    profile = (await h.suggest(form, "profile", ""))[0]!.value;
  });
  afterAll(async () => {
    await h?.close();
  });

  const freshForm = async (): Promise<OpenView> => {
    const { view } = await h.openModal();
    return h.pickProvider(view, "aws");
  };
  const aws = (name: string) =>
    stateFor("aws", h.project, {
      ...(SAMPLE_ANSWERS.aws as Record<string, string>),
      account,
      profile,
      name,
    });
  const store = () => new LaunchStore(h.bot.db, h.clock);

  it("drain() waits until a launch Palette was still creating is recorded as created", async () => {
    h.sim.control.addFault({
      pathPrefix: "/v1/spectroclusters/aws",
      method: "POST",
      kind: "latency",
      latencyMs: 3_200,
      times: 1,
    });
    const form = await freshForm();
    const updates = h.bot.fake.callsTo("views.update").length;
    const answer = await h.submit(form, aws("slow-create"));
    expect(answer.body.response_action).toBe("update");
    expect(JSON.stringify(answer.body.view)).toContain("Launching");
    // Slack has its answer, Palette has not: this is where a shutdown used to cut in
    expect((await store().all()).find((r) => r.name === "slow-create")?.status).toBe("submitting");

    await h.launch.drain();

    const record = (await store().all()).find((r) => r.name === "slow-create");
    expect(record?.status).toBe("created");
    expect(record?.clusterUid).toBeTruthy();
    expect(record?.cardTs).toBeTruthy();
    const shown = h.bot.fake.callsTo("views.update").slice(updates);
    expect(JSON.stringify(shown.at(-1)?.body.view)).toContain("Launched");
    // and the tracker stops cleanly afterwards
    await expect(h.launch.tracker.stop()).resolves.toBeUndefined();
  });

  it("a slow refusal carrying Palette's own text is shown escaped", async () => {
    const spy = vi.spyOn(h.palette, "createCluster").mockImplementationOnce(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_800));
      throw new PaletteError(
        "bad_request",
        400,
        "InvalidSpec",
        "<!channel> the spec is <b>bad</b>",
        undefined,
        "POST /v1/spectroclusters/aws",
      );
    });
    try {
      const form = await freshForm();
      const updates = h.bot.fake.callsTo("views.update").length;
      const answer = await h.submit(form, aws("slow-refusal"));
      expect(answer.body.response_action).toBe("update");
      await h.launch.drain();
      const shown = h.bot.fake.callsTo("views.update").slice(updates);
      const text = JSON.stringify(shown.at(-1)?.body.view);
      expect(text).toContain("Not launched");
      expect(text).toContain("&lt;!channel&gt;");
      expect(text).not.toContain("<!channel>");
      expect(text).not.toContain("<b>");
      expect((await store().all()).some((r) => r.name === "slow-refusal")).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it("drain() with nothing in flight returns at once", async () => {
    // "at once" as an order of events, not a time: settled before the event loop's next turn,
    // so no timer (its cap) and no I/O stood between the call and its answer
    const first = await Promise.race([
      h.launch.drain().then(() => "drained" as const),
      new Promise<"next turn">((resolve) => setImmediate(() => resolve("next turn"))),
    ]);
    expect(first).toBe("drained");
  });
});
