import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { formatTook } from "../model/change.ts";
import type { PaletteApi } from "../palette/api.ts";
import { type ChangeRecord, ChangeStore } from "../store/changes.ts";
import type { SqlDb } from "../store/sql.ts";
import { type ChangeBoard, showApprovalRequest } from "./board.ts";
import { readProgress } from "./progress.ts";

export interface ChangeFollowerDeps {
  db: SqlDb;
  /** the service account: following reads state, it changes nothing */
  palette: PaletteApi;
  board: ChangeBoard;
  clock: Clock;
  logger: Logger;
  /** a change not at its end after this long is reported failed; default 2 hours */
  maxFollowMs?: number;
}

/**
 * Follows each change Palette accepted to its end, editing its card as it goes ("3 of 5
 * Running") and once at the end ("5 Running, 4 m 12 s"), and closes approval requests whose
 * time ran out. Every end is a conditional move in the store, so two replicas following the
 * same change announce its end once. `tick` is one round; the wiring runs it on a schedule.
 */
export class ChangeFollower {
  private readonly store: ChangeStore;
  private readonly lastLine = new Map<number, string>();
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChangeFollowerDeps) {
    this.store = new ChangeStore(deps.db, deps.clock);
  }

  /** one round; a round still running is joined, not doubled */
  tick(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    for (const expired of await this.store.expireDue()) {
      await showApprovalRequest(this.deps.board, expired).catch((error: unknown) =>
        this.warn(error, "expired request card not updated"),
      );
    }
    for (const record of await this.store.following()) {
      await this.follow(record).catch((error: unknown) => this.warn(error, "change not followed"));
    }
  }

  private async follow(record: ChangeRecord): Promise<void> {
    const now = this.deps.clock.now();
    const since = record.acceptedAt ?? record.createdAt;
    let progress = await readProgress(record.plan, this.deps.palette, record.paletteRef);
    if (progress.kind === "working" && now - since > (this.deps.maxFollowMs ?? 2 * 3_600_000)) {
      progress = {
        kind: "failed",
        line: `not finished after ${formatTook(now - since)} (last: ${progress.line}); see Palette`,
      };
    }
    if (progress.kind === "working") {
      // no card yet (its post is still on its way): the line is shown at a later round
      if (!record.cardTs || this.lastLine.get(record.id) === progress.line) return;
      this.lastLine.set(record.id, progress.line);
      await this.show(record, "accepted", progress.line);
      return;
    }
    const to = progress.kind === "done" ? "done" : "failed";
    const ended = await this.store.move(record.id, "accepted", to, { reason: progress.line });
    // another replica ended it first: its card is theirs to finish
    if (!ended) return;
    this.lastLine.delete(record.id);
    if (to === "done" && ended.plan.verb === "logs") {
      await this.deliverLogs(ended, progress.line, formatTook(now - since));
      return;
    }
    await this.show(ended, to, progress.line, formatTook(now - since));
  }

  /** the collected logs, downloaded once (by whoever ended the change) into the requester's DM */
  private async deliverLogs(record: ChangeRecord, fileName: string, took: string): Promise<void> {
    const scope = record.plan.cluster.projectUid
      ? { projectUid: record.plan.cluster.projectUid }
      : {};
    try {
      const content = await this.deps.palette.downloadLogs(
        record.paletteRef ?? "",
        fileName,
        scope,
      );
      await this.deps.board.sendFile(record.requester, fileName, content);
      await this.show(record, "done", `${fileName} sent to your DMs`, took);
    } catch (error) {
      this.warn(error, "logs not delivered");
      await this.show(
        record,
        "failed",
        `Palette collected ${fileName}, but it could not be sent; fetch it in the Palette console`,
      );
    }
  }

  private async show(
    record: ChangeRecord,
    status: "accepted" | "done" | "failed",
    line: string,
    took?: string,
  ): Promise<void> {
    if (!record.cardChannel || !record.cardTs) return;
    await this.deps.board.update(record.cardChannel, record.cardTs, {
      plan: record.plan,
      status,
      requester: record.requester,
      approver: record.approver,
      line,
      took,
    });
  }

  private warn(error: unknown, message: string): void {
    this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, message);
  }
}
