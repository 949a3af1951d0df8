import type { Clock } from "../clock.ts";
import type { Subscription, SubscriptionKind } from "../model/subscription.ts";
import type { Db } from "./db.ts";

interface Row {
  id: number;
  channel: string;
  kind: SubscriptionKind;
  project: string | null;
  tag: string | null;
  paused_reason: string | null;
  created_by: string;
  created_at: string;
}

const toSubscription = (row: Row): Subscription => ({
  id: row.id,
  channel: row.channel,
  kind: row.kind,
  project: row.project ?? undefined,
  tag: row.tag ?? undefined,
  pausedReason: row.paused_reason ?? undefined,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

export class SubscriptionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  add(input: {
    channel: string;
    kind: SubscriptionKind;
    project?: string;
    tag?: string;
    createdBy: string;
  }): Subscription {
    const createdAt = new Date(this.clock.now()).toISOString();
    const info = this.db
      .prepare(
        "INSERT INTO notify_subscriptions (channel, kind, project, tag, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(
        input.channel,
        input.kind,
        input.project ?? null,
        input.tag ?? null,
        input.createdBy,
        createdAt,
      );
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Subscription | undefined {
    const row = this.db.prepare("SELECT * FROM notify_subscriptions WHERE id = ?").get(id) as
      | Row
      | undefined;
    return row ? toSubscription(row) : undefined;
  }

  /** the same kind and filters already in this channel */
  find(channel: string, kind: SubscriptionKind, project?: string, tag?: string) {
    const row = this.db
      .prepare(
        "SELECT * FROM notify_subscriptions WHERE channel = ? AND kind = ? AND project IS ? AND tag IS ?",
      )
      .get(channel, kind, project ?? null, tag ?? null) as Row | undefined;
    return row ? toSubscription(row) : undefined;
  }

  forChannel(channel: string): Subscription[] {
    return (
      this.db
        .prepare("SELECT * FROM notify_subscriptions WHERE channel = ? ORDER BY id")
        .all(channel) as Row[]
    ).map(toSubscription);
  }

  all(): Subscription[] {
    return (this.db.prepare("SELECT * FROM notify_subscriptions ORDER BY id").all() as Row[]).map(
      toSubscription,
    );
  }

  remove(channel: string, id: number): boolean {
    return (
      this.db
        .prepare("DELETE FROM notify_subscriptions WHERE channel = ? AND id = ?")
        .run(channel, id).changes > 0
    );
  }

  removeAll(channel: string): number {
    return this.db.prepare("DELETE FROM notify_subscriptions WHERE channel = ?").run(channel)
      .changes;
  }

  /** Slack said the channel is gone or closed to the bot: stop routing to it. */
  pauseChannel(channel: string, reason: string): number {
    return this.db
      .prepare(
        "UPDATE notify_subscriptions SET paused_reason = ? WHERE channel = ? AND paused_reason IS NULL",
      )
      .run(reason, channel).changes;
  }

  resume(id: number): void {
    this.db.prepare("UPDATE notify_subscriptions SET paused_reason = NULL WHERE id = ?").run(id);
  }

  /** The bot is back in the channel: every subscription there hears news again. */
  resumeChannel(channel: string): number {
    return this.db
      .prepare(
        "UPDATE notify_subscriptions SET paused_reason = NULL WHERE channel = ? AND paused_reason IS NOT NULL",
      )
      .run(channel).changes;
  }
}
