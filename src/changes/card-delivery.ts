import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import {
  type CardSlot,
  type ChangeRecord,
  ChangeStore,
  type OwedCard,
  type OwedRequest,
} from "../store/changes.ts";
import type { SqlDb } from "../store/sql.ts";
import type { BoardRefusal, ChangeBoard } from "./board.ts";

/**
 * A change's cards delivered like notifications (issue 31, item 2): what a person must see (its
 * card at each step and at its end, the approval request after a decision) is written to the
 * change's row first (src/store/changes.ts `owe`, or in the move itself), then sent; a refusal
 * keeps it there, tried again after Slack's Retry-After (or a back-off) by the follower's rounds,
 * and a refusal that lasts (the channel is gone, the message deleted) or keeps coming sends the
 * card to the requester's DM instead. Nothing here throws: the row holds what is still owed.
 */

/** while one sender has a card in hand, nobody else sends it (a crashed sender's passes) */
export const CARD_LEASE_MS = 60_000;
/** failed tries of a passing refusal before the card goes to the requester's DM instead */
export const MAX_CARD_TRIES = 8;
/** the longest wait between tries when Slack does not say (5 s, 10 s … 5 min) */
const MAX_BACKOFF_MS = 5 * 60_000;

export interface CardDeliveryDeps {
  db: SqlDb;
  clock: Clock;
  board: ChangeBoard;
  logger: Logger;
}

/** the key a change's card is posted once under (with its channel: the DM is another post) */
export const changeCardKey = (id: number) => `change-card:${id}`;

/** when to try again after `tries` failed tries, when Slack did not say */
export function backoffMs(tries: number): number {
  return Math.min(MAX_BACKOFF_MS, 5_000 * 2 ** Math.max(0, tries - 1));
}

/** the change card owed now, written to the row, then sent */
export async function showCard(
  record: ChangeRecord,
  card: OwedCard,
  deps: CardDeliveryDeps,
): Promise<void> {
  await new ChangeStore(deps.db, deps.clock).owe("card", record.id, card);
  await deliverCard(record.id, deps);
}

/** the approval request card edited to what the row says (and `line`), owed until then */
export async function showRequestCard(
  record: ChangeRecord,
  deps: CardDeliveryDeps,
  line?: string,
): Promise<void> {
  if (!record.requestChannel || !record.requestTs) return;
  await new ChangeStore(deps.db, deps.clock).owe("request", record.id, line ? { line } : {});
  await deliverRequestCard(record.id, deps);
}

/** every card whose time to try has come (the follower's rounds) */
export async function deliverDue(deps: CardDeliveryDeps): Promise<void> {
  const store = new ChangeStore(deps.db, deps.clock);
  for (const id of await store.owedDue("card", deps.clock.now())) await deliverCard(id, deps);
  for (const id of await store.owedDue("request", deps.clock.now())) {
    await deliverRequestCard(id, deps);
  }
}

/** the change card this row owes, if it is due and nobody else has it in hand */
export async function deliverCard(id: number, deps: CardDeliveryDeps): Promise<void> {
  await deliver("card", id, deps, async (record, store, lease) => {
    const owed = record.cardOwed!.value;
    const card = {
      plan: record.plan,
      requester: record.requester,
      approver: record.approver,
      ...owed,
    };
    if (record.cardChannel && record.cardTs) {
      await deps.board.update(record.cardChannel, record.cardTs, card);
      return;
    }
    const where = await deps.board.post(record.channel, card, changeCardKey(record.id));
    if (!where) return;
    // a fresh card, recorded only where none is and while this sender holds the row
    if (!(await store.setCard(record.id, where.channel, where.ts, { lease, fresh: true }))) {
      deps.logger.warn(
        { changeId: record.id, channel: where.channel, ts: where.ts },
        "change card posted but not recorded: the row has a card, or another sender has it",
      );
    }
  });
}

/** the approval request card's edit this row owes */
export async function deliverRequestCard(id: number, deps: CardDeliveryDeps): Promise<void> {
  await deliver("request", id, deps, async (record) => {
    if (!record.requestChannel || !record.requestTs) return;
    const owed: OwedRequest = record.requestOwed!.value;
    await deps.board.updateApproval(record.requestChannel, record.requestTs, {
      id: record.id,
      plan: record.plan,
      requester: record.requester,
      status: record.status,
      expiresAt: record.expiresAt ?? 0,
      approver: record.approver,
      line: owed.line,
    });
  });
}

async function deliver(
  slot: CardSlot,
  id: number,
  deps: CardDeliveryDeps,
  send: (record: ChangeRecord, store: ChangeStore, lease: string) => Promise<void>,
): Promise<void> {
  const store = new ChangeStore(deps.db, deps.clock);
  // a newer card owed while one was in hand is sent straight after it (a few at most)
  for (let round = 0; round < 3; round++) {
    try {
      const taken = await store.takeOwed(slot, id, CARD_LEASE_MS);
      const record = taken?.record;
      const owed = slot === "card" ? record?.cardOwed : record?.requestOwed;
      if (!taken || !record || !owed) return;
      const held = { store, lease: taken.lease };
      try {
        await send(record, store, taken.lease);
      } catch (error) {
        await refused(slot, record, owed.raw, owed.tries + 1, error, deps, held);
        return;
      }
      if (await store.owedShown(slot, id, owed.raw, taken.lease)) return;
    } catch (error) {
      // the store itself failed: the row still owes the card, and the next round sends it
      deps.logger.warn({ changeId: id, slot, err: String(error) }, "change card not delivered");
      return;
    }
  }
}

async function refused(
  slot: CardSlot,
  record: ChangeRecord,
  raw: string,
  tries: number,
  error: unknown,
  deps: CardDeliveryDeps,
  { store, lease }: { store: ChangeStore; lease: string },
): Promise<void> {
  const refusal: BoardRefusal = deps.board.refusal?.(error) ?? {
    lasting: false,
    code: error instanceof Error ? error.message : String(error),
  };
  const log = { changeId: record.id, slot, code: refusal.code, tries };
  if (refusal.deferral) {
    // an earlier try may still land: wait for it, no failed try (issue 37 item 1)
    const waitMs = refusal.retryAfterMs ?? backoffMs(1);
    deps.logger.info(
      { ...log, tries: tries - 1, retryInMs: waitMs },
      "change card waits on an earlier try",
    );
    await store.owedLater(slot, record.id, deps.clock.now() + waitMs, {
      failedTry: false,
      lease,
    });
    return;
  }
  if (!refusal.lasting && tries < MAX_CARD_TRIES) {
    const waitMs = refusal.retryAfterMs ?? backoffMs(tries);
    deps.logger.warn({ ...log, retryInMs: waitMs }, "change card refused by Slack; kept to retry");
    await store.owedLater(slot, record.id, deps.clock.now() + waitMs, { lease });
    return;
  }
  if (slot === "request") {
    // the request card is the approvers'; the change card tells the requester where it ended
    deps.logger.warn(log, "approval request card not edited; Slack keeps refusing it");
    await store.owedShown(slot, record.id, raw, lease);
    return;
  }
  // the requester hears it another way: the card in their DM with the bot, edited there after
  const card = { plan: record.plan, requester: record.requester, approver: record.approver };
  try {
    const where = await deps.board.post(
      record.requester,
      { ...card, ...record.cardOwed!.value },
      changeCardKey(record.id),
    );
    // the DM card takes the place of the channel's (gone, or never posted)
    if (where) await store.setCard(record.id, where.channel, where.ts, { lease });
    deps.logger.warn(log, "change card refused in its channel; sent to the requester's DM");
    await store.owedShown(slot, record.id, raw, lease);
  } catch (dmError) {
    const dm = deps.board.refusal?.(dmError);
    deps.logger.error(
      { ...log, dm: dm?.code ?? String(dmError) },
      "change card refused in its channel and in the requester's DM",
    );
    // the DM is closed for good too: the end stays in the audit and `/palette why`
    if (dm?.lasting) await store.owedShown(slot, record.id, raw, lease);
    else await store.owedLater(slot, record.id, deps.clock.now() + MAX_BACKOFF_MS, { lease });
  }
}
