import { describe, expect, it } from "vitest";
import { InFlight } from "../../../src/slack/in-flight.ts";
import { concurrencyLimit } from "../../../src/slack/run-command.ts";

describe("concurrencyLimit", () => {
  it("runs at most N at once, in arrival order, and frees slots on failure", async () => {
    const limit = concurrencyLimit(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const task = (id: number, fail = false) =>
      limit(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(id);
        await new Promise<void>((resolve) => gates.push(resolve));
        active--;
        if (fail) throw new Error(`task ${id}`);
        return id;
      });
    const results = [task(1, true), task(2), task(3), task(4)].map((p) =>
      p.then(
        (value) => value,
        (error: Error) => error.message,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([1, 2]);
    while (gates.length > 0 || order.length < 4) {
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const open of gates) open();
    expect(await Promise.all(results)).toEqual(["task 1", 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(peak).toBe(2);
  });
});

describe("createRunCommand", () => {
  it("opens a launch modal at once even when every slot is busy with slow reads", async () => {
    const { createRunCommand } = await import("../../../src/slack/run-command.ts");
    const { silentLogger } = await import("../../../src/log.ts");
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const dispatched: string[] = [];
    const opened: string[] = [];
    const runCommand = createRunCommand({
      commandDeps: {} as never,
      logger: silentLogger,
      inFlight: new InFlight(),
      maxConcurrent: 1,
      hooks: {
        onModal: async (_reply, ctx) => {
          opened.push(ctx.triggerId);
        },
      },
      dispatch: async (text) => {
        dispatched.push(text);
        if (text === "launch") return { kind: "modal", modal: "launch" };
        await slow;
        return {
          kind: "message",
          text: "ok",
          view: { screen: "notice", data: { mrkdwn: "ok" } },
          visibility: "ephemeral",
        };
      },
    });
    const target = (triggerId?: string) => ({
      requester: { userId: "U1", channelId: "C1" },
      client: {} as never,
      respond: (async () => ({})) as never,
      triggerId,
    });
    const reads = [runCommand("clusters", target()), runCommand("nodes x", target())];
    const launch = runCommand("launch", target("trigger-1"));
    await launch;
    expect(opened).toEqual(["trigger-1"]);
    expect(dispatched).toEqual(["clusters", "launch"]);
    release();
    await Promise.all(reads);
    expect(dispatched).toEqual(["clusters", "launch", "nodes x"]);
  });
});
