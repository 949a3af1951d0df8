import { describe, expect, it } from "vitest";
import { ChannelPacing } from "../../../src/notify/delivery/channel-pacing.ts";

/** when each of `count` messages goes out if every one is sent as soon as it may */
function schedule(pacing: ChannelPacing, channel: string, count: number, start: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = Math.max(start, pacing.readyAt(channel));
    pacing.sent(channel, at);
    times.push(at);
  }
  return times;
}

describe("ChannelPacing", () => {
  it("without a burst keeps one message per gap, as before", () => {
    expect(schedule(new ChannelPacing(1000), "C1", 4, 0)).toEqual([0, 1000, 2000, 3000]);
  });

  it("lets a burst out at once, then paces the rest at one per gap", () => {
    expect(schedule(new ChannelPacing(1000, 3), "C1", 6, 0)).toEqual([0, 0, 0, 1000, 2000, 3000]);
  });

  it("refills the burst at the steady rate while the channel is quiet", () => {
    const pacing = new ChannelPacing(1000, 3);
    schedule(pacing, "C1", 3, 0);
    // 30 s later the whole allowance is back; 1.5 s later one and a half messages of it
    expect(schedule(pacing, "C1", 4, 30_000)).toEqual([30_000, 30_000, 30_000, 31_000]);
    const other = new ChannelPacing(1000, 3);
    schedule(other, "C1", 3, 0);
    expect(schedule(other, "C1", 2, 1500)).toEqual([1500, 2000]);
  });

  it("paces each channel on its own", () => {
    const pacing = new ChannelPacing(1000, 2);
    schedule(pacing, "C1", 5, 0);
    expect(schedule(pacing, "C2", 2, 0)).toEqual([0, 0]);
  });

  it("after Slack's 'too fast' waits as told and gives no burst until it refills", () => {
    const pacing = new ChannelPacing(1000, 5);
    pacing.slowDown("C1", 10_000);
    expect(schedule(pacing, "C1", 3, 0)).toEqual([10_000, 11_000, 12_000]);
  });
});
