/**
 * Slack takes about one message a second per channel and tolerates short bursts. Each channel may
 * send `burst` messages at once and then one per `gapMs`, refilled at that rate: a poll's handful
 * of cards reaches the channel together rather than one a second, while a long run of news is
 * still paced at Slack's rate. One number per channel (the time its next message would be due at
 * the steady rate), as in the generic cell rate algorithm.
 */
export class ChannelPacing {
  private readonly due = new Map<string, number>();

  constructor(
    private readonly gapMs: number,
    private readonly burst = 1,
  ) {}

  /** the earliest time the channel may take its next message */
  readyAt(channel: string): number {
    const due = this.due.get(channel);
    return due === undefined ? Number.NEGATIVE_INFINITY : due - this.slack();
  }

  /** a message reached the channel at `now` */
  sent(channel: string, now: number): void {
    this.due.set(channel, Math.max(this.due.get(channel) ?? now, now) + this.gapMs);
  }

  /** Slack said "too fast": nothing before `until`, and no burst until the allowance refills */
  slowDown(channel: string, until: number): void {
    this.due.set(channel, Math.max(this.due.get(channel) ?? until, until + this.slack()));
  }

  private slack(): number {
    return Math.max(0, Math.floor(this.burst) - 1) * this.gapMs;
  }
}
