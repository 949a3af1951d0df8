import type { Clock } from "../clock.ts";
import type { Subscription, SubscriptionKind } from "../model/subscription.ts";
import type { SqlExecutor } from "./sql.ts";

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
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  async add(input: {
    channel: string;
    kind: SubscriptionKind;
    project?: string;
    tag?: string;
    createdBy: string;
  }): Promise<Subscription> {
    const createdAt = new Date(this.clock.now()).toISOString();
    const row = await this.db.get<Row>(
      `INSERT INTO notify_subscriptions (channel, kind, project, tag, created_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        input.channel,
        input.kind,
        input.project ?? null,
        input.tag ?? null,
        input.createdBy,
        createdAt,
      ],
    );
    return toSubscription(row!);
  }

  async get(id: number): Promise<Subscription | undefined> {
    const row = await this.db.get<Row>("SELECT * FROM notify_subscriptions WHERE id = ?", [id]);
    return row ? toSubscription(row) : undefined;
  }

  /** the same kind and filters already in this channel */
  async find(
    channel: string,
    kind: SubscriptionKind,
    project?: string,
    tag?: string,
  ): Promise<Subscription | undefined> {
    const row = await this.db.get<Row>(
      `SELECT * FROM notify_subscriptions WHERE channel = ? AND kind = ?
         AND project IS NOT DISTINCT FROM ? AND tag IS NOT DISTINCT FROM ?`,
      [channel, kind, project ?? null, tag ?? null],
    );
    return row ? toSubscription(row) : undefined;
  }

  async forChannel(channel: string): Promise<Subscription[]> {
    const rows = await this.db.all<Row>(
      "SELECT * FROM notify_subscriptions WHERE channel = ? ORDER BY id",
      [channel],
    );
    return rows.map(toSubscription);
  }

  async all(): Promise<Subscription[]> {
    return (await this.db.all<Row>("SELECT * FROM notify_subscriptions ORDER BY id")).map(
      toSubscription,
    );
  }

  async remove(channel: string, id: number): Promise<boolean> {
    const result = await this.db.run(
      "DELETE FROM notify_subscriptions WHERE channel = ? AND id = ?",
      [channel, id],
    );
    return result.changes > 0;
  }

  async removeAll(channel: string): Promise<number> {
    return (await this.db.run("DELETE FROM notify_subscriptions WHERE channel = ?", [channel]))
      .changes;
  }

  /** Slack said the channel is gone or closed to the bot: stop routing to it. */
  async pauseChannel(channel: string, reason: string): Promise<number> {
    const result = await this.db.run(
      "UPDATE notify_subscriptions SET paused_reason = ? WHERE channel = ? AND paused_reason IS NULL",
      [reason, channel],
    );
    return result.changes;
  }

  async resume(id: number): Promise<void> {
    await this.db.run("UPDATE notify_subscriptions SET paused_reason = NULL WHERE id = ?", [id]);
  }

  /** The bot is back in the channel: every subscription there hears news again. */
  async resumeChannel(channel: string): Promise<number> {
    const result = await this.db.run(
      "UPDATE notify_subscriptions SET paused_reason = NULL WHERE channel = ? AND paused_reason IS NOT NULL",
      [channel],
    );
    return result.changes;
  }
}
