import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import {
  type ChangeProgress,
  formatTook,
  MAX_FAILED_READS,
  STUCK_EXECUTING_MS,
  unconfirmedCheckMs,
} from "../model/change.ts";
import type { PaletteApi } from "../palette/api.ts";
import { describeForUser } from "../palette/errors.ts";
import type { AuditLog } from "../store/audit.ts";
import { type ChangeRecord, ChangeStore } from "../store/changes.ts";
import type { SqlDb } from "../store/sql.ts";
import { auditStep, type ChangeStep, subjectOf } from "./audit-trail.ts";
import type { ChangeBoard } from "./board.ts";
import {
  type CardDeliveryDeps,
  deliverCard,
  deliverDue,
  showCard,
  showRequestCard,
} from "./card-delivery.ts";
import { UNCONFIRMED_LINE } from "./execute.ts";
import { planScope, readProgress, tookEffect } from "./progress.ts";

export interface ChangeFollowerDeps {
  db: SqlDb;
  /** the service account: following reads state, it changes nothing */
  palette: PaletteApi;
  board: ChangeBoard;
  clock: Clock;
  logger: Logger;
  /** a change not at its end after this long is reported failed; default 2 hours */
  maxFollowMs?: number;
  /** records the reconciling steps (a stuck claim read, an unconfirmed change settled) */
  audit?: AuditLog;
}

/**
 * Follows each change Palette accepted to its end, editing its card as it goes ("3 of 5
 * Running") and once at the end ("5 Running, 4 m 12 s"), and closes approval requests whose
 * time ran out. Every end is a conditional move in the store, so two replicas following the
 * same change announce its end once. `tick` is one round; the wiring runs it on a schedule.
 */
export class ChangeFollower {
  private readonly store: ChangeStore;
  private readonly cards: CardDeliveryDeps;
  private readonly lastLine = new Map<number, string>();
  /** progress reads that failed in a row, per change: past MAX_FAILED_READS it ends */
  private readonly failedReads = new Map<number, number>();
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChangeFollowerDeps) {
    this.store = new ChangeStore(deps.db, deps.clock);
    this.cards = { db: deps.db, clock: deps.clock, board: deps.board, logger: deps.logger };
  }

  /** one round; a round still running is joined, not doubled */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    // cards Slack refused before (a 429, a 5xx), whose time to try again has come
    await deliverDue(this.cards);
    for (const expired of await this.store.expireDue()) {
      await this.record(expired, { step: "expired" });
      await showRequestCard(expired, this.cards);
    }
    // a claim whose sender's heartbeat stopped (its replica died, or stopped between sending
    // and recording): read, never sent again. A sender still at work keeps beating.
    // judged by the database's clock, as the heartbeats are stamped (src/store/changes.ts)
    for (const stuck of await this.store.stuckExecuting(STUCK_EXECUTING_MS)) {
      await this.reconcile(stuck).catch((error: unknown) =>
        this.warn(error, "stuck change not reconciled"),
      );
    }
    for (const record of await this.store.unconfirmed()) {
      await this.check(record).catch((error: unknown) =>
        this.warn(error, "unconfirmed change not checked"),
      );
    }
    for (const record of await this.store.following()) {
      await this.follow(record).catch((error: unknown) => this.warn(error, "change not followed"));
    }
  }

  /** a stuck `executing` row becomes unconfirmed; its cards say Palette is being checked */
  private async reconcile(record: ChangeRecord): Promise<void> {
    // taken only if the heartbeat is still stopped as the statement runs
    const moved = await this.store.takeOver(record.id, STUCK_EXECUTING_MS, UNCONFIRMED_LINE);
    if (!moved) return;
    this.deps.logger.warn({ changeId: record.id }, "change stuck executing: reading Palette");
    await this.record(moved, {
      step: "reconciled",
      outcome: "unconfirmed",
      detail: { from: "executing" },
    });
    // its replica never posted the card: the requester hears it from here
    await showCard(moved, { status: "unconfirmed", line: UNCONFIRMED_LINE }, this.cards);
    await showRequestCard(moved, this.cards);
    await this.check((await this.store.get(moved.id)) ?? moved);
  }

  /**
   * An unconfirmed change: Palette read to find whether it took effect. Shown: followed like an
   * accepted one. Not shown after UNCONFIRMED_CHECK_MS: it ends "not seen in Palette". Never re-sent.
   */
  private async check(record: ChangeRecord): Promise<void> {
    let effect: boolean | undefined;
    try {
      effect = await tookEffect(record.plan, this.deps.palette, record.paletteRef);
      this.failedReads.delete(record.id);
    } catch (error) {
      await this.readFailed(record, "unconfirmed", error);
      return;
    }
    if (effect) {
      const line = "Palette did not answer, but it shows the change";
      const accepted = await this.store.move(record.id, "unconfirmed", "accepted", {
        reason: line,
        card: { status: "accepted", line },
      });
      if (!accepted) return;
      await this.record(accepted, {
        step: "reconciled",
        outcome: "accepted",
        detail: { found: "Palette shows the change" },
      });
      await deliverCard(accepted.id, this.cards);
      await this.follow((await this.store.get(accepted.id)) ?? accepted);
      return;
    }
    // from when it became unconfirmed (a card recorded since moves updatedAt, not the window), by
    // the database's clock, which stamped it: another replica's clock may run ahead of this one's
    const waited = await this.store.unconfirmedForMs(record.id);
    if (waited === undefined || waited < unconfirmedCheckMs(record.plan.verb)) return;
    const line =
      effect === false
        ? // "not seen", not "not applied": a sender paused between its last check and the socket's
          // write (SIGSTOP, a frozen VM) still sends when it wakes, which no fence can stop
          `not seen in Palette: Palette did not answer and, ${formatTook(waited)} later, shows no sign of it yet. It was not sent again; look in Palette before asking again`
        : record.plan.verb === "renew"
          ? `could not be checked: Palette did not answer and, ${formatTook(waited)} later, the certificates' earliest expiry did not move. It was not sent again; look in Palette before asking again`
          : "could not be checked: Palette did not answer and names no request to follow. It was not sent again; look in Palette before asking again";
    const ended = await this.store.move(record.id, "unconfirmed", "failed", {
      reason: line,
      card: { status: "failed", line },
    });
    if (!ended) return;
    await this.record(ended, { step: "end", outcome: "failed", line });
    await deliverCard(ended.id, this.cards);
  }

  /**
   * A read of Palette failed. Counted; past MAX_FAILED_READS in a row the change ends failed
   * "could not be checked", so a card never waits at ⏳ on reads that keep failing.
   */
  private async readFailed(
    record: ChangeRecord,
    from: "accepted" | "unconfirmed",
    error: unknown,
  ): Promise<void> {
    const failures = (this.failedReads.get(record.id) ?? 0) + 1;
    this.failedReads.set(record.id, failures);
    this.warn(error, "change progress not read");
    if (failures < MAX_FAILED_READS) return;
    this.failedReads.delete(record.id);
    const maybe = from === "unconfirmed" ? " It may have happened and was not sent again;" : "";
    const line = `could not be checked: ${describeForUser(error)}${maybe} see Palette`;
    const ended = await this.store.move(record.id, from, "failed", {
      reason: line,
      card: { status: "failed", line },
    });
    if (!ended) return;
    this.lastLine.delete(record.id);
    await this.record(ended, { step: "end", outcome: "failed", line });
    await deliverCard(ended.id, this.cards);
  }

  /** one step of the change in the audit (src/changes/audit-trail.ts says what it holds) */
  private async record(record: ChangeRecord, step: ChangeStep): Promise<void> {
    if (!this.deps.audit) return;
    await auditStep(this.deps.audit, subjectOf(record), step).catch((error: unknown) =>
      this.warn(error, "change step not audited"),
    );
  }

  private async follow(record: ChangeRecord): Promise<void> {
    const now = this.deps.clock.now();
    const since = record.acceptedAt ?? record.createdAt;
    let progress: ChangeProgress;
    try {
      progress = await readProgress(record.plan, this.deps.palette, record.paletteRef);
      this.failedReads.delete(record.id);
    } catch (error) {
      await this.readFailed(record, "accepted", error);
      return;
    }
    if (progress.kind === "working" && now - since > (this.deps.maxFollowMs ?? 2 * 3_600_000)) {
      progress = {
        kind: "failed",
        line: `not finished after ${formatTook(now - since)} (last: ${progress.line}); see Palette`,
      };
    }
    if (progress.kind === "working") {
      if (this.lastLine.get(record.id) === progress.line) return;
      this.lastLine.set(record.id, progress.line);
      // owed like an end: a card whose first post is still on its way gets it right after
      await showCard(record, { status: "accepted", line: progress.line }, this.cards);
      return;
    }
    const to = progress.kind === "done" ? "done" : "failed";
    const took = formatTook(now - since);
    const logs = to === "done" && record.plan.verb === "logs";
    // the end and the card it owes the requester in one statement: a refused edit is retried
    const ended = await this.store.move(record.id, "accepted", to, {
      reason: progress.line,
      ...(logs ? {} : { card: { status: to, line: progress.line, took } }),
    });
    // another replica ended it first: its card is theirs to finish
    if (!ended) return;
    this.lastLine.delete(record.id);
    if (logs) {
      await this.deliverLogs(ended, progress.line, took);
      return;
    }
    await this.record(ended, { step: "end", outcome: to, line: progress.line, took });
    await deliverCard(ended.id, this.cards);
  }

  /** the collected logs, downloaded once (by whoever ended the change) into the requester's DM */
  private async deliverLogs(record: ChangeRecord, fileName: string, took: string): Promise<void> {
    const scope = planScope(record.plan);
    try {
      const content = await this.deps.palette.downloadLogs(
        record.paletteRef ?? "",
        fileName,
        scope,
      );
      await this.deps.board.sendFile(record.requester, fileName, content);
      await this.record(record, {
        step: "end",
        outcome: "done",
        line: `${fileName} sent to the requester's DMs`,
        took,
      });
      await showCard(
        record,
        { status: "done", line: `${fileName} sent to your DMs`, took },
        this.cards,
      );
    } catch (error) {
      this.warn(error, "logs not delivered");
      await this.record(record, {
        step: "end",
        outcome: "failed",
        line: `Palette collected ${fileName}, but it could not be sent`,
      });
      await showCard(
        record,
        {
          status: "failed",
          line: `Palette collected ${fileName}, but it could not be sent; fetch it in the Palette console`,
        },
        this.cards,
      );
    }
  }

  private warn(error: unknown, message: string): void {
    this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, message);
  }
}
