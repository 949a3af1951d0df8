import { describe, expect, it } from "vitest";
import { inBackground, requestPriority } from "../../../src/palette/priority.ts";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("request priority", () => {
  it("marks requests inside a background run, and none outside", async () => {
    expect(requestPriority()).toBe("interactive");
    const inside = await inBackground(async () => {
      await tick();
      return requestPriority();
    });
    expect(inside).toBe("background");
    expect(requestPriority()).toBe("interactive");
  });

  it("keeps a background run marked when another that overlapped it ends first", async () => {
    let releaseLong!: () => void;
    const longGate = new Promise<void>((resolve) => {
      releaseLong = resolve;
    });
    const long = inBackground(async () => {
      await longGate;
      await tick();
      return requestPriority();
    });
    await inBackground(async () => {
      await tick();
    });
    // the short run ended: the storage must stay on while the long one still works
    releaseLong();
    expect(await long).toBe("background");
    expect(requestPriority()).toBe("interactive");
  });

  it("leaves work started outside a background run interactive while one runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const background = inBackground(() => gate);
    const command = (async () => {
      await tick();
      return requestPriority();
    })();
    expect(await command).toBe("interactive");
    release();
    await background;
  });
});
