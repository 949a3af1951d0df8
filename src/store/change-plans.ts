import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { ChangePlan } from "../model/change.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * How long an open confirmation's plan is kept. A modal left open longer is refused at submit
 * ("ask again"): Palette will have moved on by then, and the plan would be checked as stale anyway.
 */
export const CHANGE_PLAN_TTL_MS = 12 * 60 * 60_000;

export interface PendingPlan {
  plan: ChangePlan;
  /** the channel the change was asked in; its card goes there */
  channel: string;
  /** the Slack user the confirmation was opened for */
  requester: string;
}

interface PlanRow {
  plan: string;
  channel: string;
  requester: string;
}

/**
 * Plans of open confirmations (table change_plans): the modal's `private_metadata` carries only
 * the id, which is random, so a submission cannot name another person's plan by guessing.
 */
export class ChangePlanStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
    private readonly ttlMs = CHANGE_PLAN_TTL_MS,
  ) {}

  /** keeps `pending` and returns its id; plans past their time go at the same moment */
  async put(pending: PendingPlan): Promise<string> {
    const now = this.clock.now();
    await this.prune();
    const id = randomBytes(16).toString("base64url");
    await this.db.run(
      `INSERT INTO change_plans (id, plan, channel, requester, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [id, JSON.stringify(pending.plan), pending.channel, pending.requester, now, now + this.ttlMs],
    );
    return id;
  }

  /** the plan, or undefined when it is unknown or past its time */
  async get(id: string): Promise<PendingPlan | undefined> {
    const row = await this.db.get<PlanRow>(
      "SELECT plan, channel, requester FROM change_plans WHERE id = ? AND expires_at > ?",
      [id, this.clock.now()],
    );
    if (!row) return undefined;
    return {
      plan: JSON.parse(row.plan) as ChangePlan,
      channel: row.channel,
      requester: row.requester,
    };
  }

  /** deletes the plans past their time; returns how many */
  async prune(): Promise<number> {
    const result = await this.db.run("DELETE FROM change_plans WHERE expires_at <= ?", [
      this.clock.now(),
    ]);
    return result.changes;
  }
}
