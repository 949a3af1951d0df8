import type { Clock } from "../clock.ts";
import type { SqlExecutor } from "./sql.ts";

/** One question and its answer in an assistant conversation (a thread, a DM, the console). */
export interface AssistantTurn {
  id: number;
  question: string;
  answer: string;
  /** the text of the reads the answer was grounded in, as the model saw them (bounded) */
  readText: string;
  /**
   * the tokens and links of the data those reads returned, one a line: the only grounds a
   * follow-up takes from this turn (the text above also holds the model's own arguments)
   */
  readGrounds: string;
}

/** a follow-up sees at most this many earlier turns of its conversation */
export const HISTORY_TURNS = 6;
/** each field is cut to this many characters before it is stored */
const MAX_FIELD = 8_000;
/** pruning runs on one stored turn in this many */
const PRUNE_EVERY = 50;

/**
 * The assistant's conversations, kept server-side so a follow-up in the thread knows what was
 * asked and read before: bounded (the last HISTORY_TURNS, each field cut) and deleted after the
 * retention (ASSISTANT_HISTORY_DAYS).
 */
export class AssistantTurnStore {
  private stored = 0;

  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  /**
   * The asker's own last turns of the conversation within the retention, oldest first (issue 36
   * item 1): one person's follow-up never sees, nor is grounded in, another person's questions
   * or reads, which under IDENTITY=strict were read with the other person's key. With
   * `quietMs`, a pause that long starts a new conversation (a top-level DM has no thread to
   * mark where one ends): only the turns after the last such pause are returned.
   */
  async history(
    conversation: string,
    userId: string,
    options: { quietMs?: number } = {},
  ): Promise<AssistantTurn[]> {
    const now = this.clock.now();
    const since = now - this.retentionMs;
    const rows = await this.db.all<AssistantTurn & { createdAt: number }>(
      `SELECT id, question, answer, read_text AS "readText", read_grounds AS "readGrounds",
              created_at AS "createdAt"
       FROM assistant_turns
       WHERE conversation = ? AND user_id = ? AND created_at >= ? ORDER BY id DESC LIMIT ?`,
      [conversation.slice(0, 200), userId.slice(0, 64), since, HISTORY_TURNS],
    );
    const kept = sinceLastPause(
      rows.map((row) => ({ ...row, createdAt: Number(row.createdAt) })),
      now,
      options.quietMs,
    );
    return kept
      .map(({ id, question, answer, readText, readGrounds }) => ({
        id: Number(id),
        question,
        answer,
        readText,
        readGrounds,
      }))
      .reverse();
  }

  /** one stored turn, for sharing its answer; only the asker's own */
  async turnOf(turnId: number, userId: string): Promise<AssistantTurn | undefined> {
    const row = await this.db.get<AssistantTurn>(
      `SELECT id, question, answer, read_text AS "readText", read_grounds AS "readGrounds"
       FROM assistant_turns
       WHERE id = ? AND user_id = ? AND created_at >= ?`,
      [turnId, userId.slice(0, 64), this.clock.now() - this.retentionMs],
    );
    return row ? { ...row, id: Number(row.id) } : undefined;
  }

  async add(turn: {
    conversation: string;
    userId: string;
    question: string;
    answer: string;
    readText: string;
    /** the grounds of the turn's reads' data, one a line ({@link AssistantTurn.readGrounds}) */
    readGrounds?: string;
  }): Promise<number> {
    const now = this.clock.now();
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO assistant_turns
         (conversation, user_id, question, answer, read_text, read_grounds, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [
        turn.conversation.slice(0, 200),
        turn.userId.slice(0, 64),
        turn.question.slice(0, MAX_FIELD),
        turn.answer.slice(0, MAX_FIELD),
        turn.readText.slice(-MAX_FIELD),
        wholeLines(turn.readGrounds ?? "", MAX_FIELD),
        now,
      ],
    );
    if (++this.stored % PRUNE_EVERY === 1) await this.prune(now);
    return Number(row!.id);
  }

  /** deletes turns (and their votes) older than the retention */
  async prune(now = this.clock.now()): Promise<number> {
    const cutoff = now - this.retentionMs;
    await this.db.run(
      "DELETE FROM assistant_feedback WHERE turn_id IN (SELECT id FROM assistant_turns WHERE created_at < ?)",
      [cutoff],
    );
    const result = await this.db.run("DELETE FROM assistant_turns WHERE created_at < ?", [cutoff]);
    return result.changes;
  }

  /** a 👍 or 👎 on an answer; a second vote by the same person replaces the first */
  async vote(turnId: number, userId: string, vote: "up" | "down"): Promise<boolean> {
    const turn = await this.db.get<{ id: number }>("SELECT id FROM assistant_turns WHERE id = ?", [
      turnId,
    ]);
    if (!turn) return false;
    await this.db.run(
      `INSERT INTO assistant_feedback (turn_id, user_id, vote, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (turn_id, user_id) DO UPDATE SET vote = excluded.vote, at = excluded.at`,
      [turnId, userId.slice(0, 64), vote, this.clock.now()],
    );
    return true;
  }
}

/** newest first in, newest first out: the turns before the first gap longer than `quietMs` */
function sinceLastPause<T extends { createdAt: number }>(
  newestFirst: T[],
  now: number,
  quietMs: number | undefined,
): T[] {
  if (quietMs === undefined) return newestFirst;
  const kept: T[] = [];
  let after = now;
  for (const turn of newestFirst) {
    if (after - turn.createdAt > quietMs) break;
    kept.push(turn);
    after = turn.createdAt;
  }
  return kept;
}

/** at most `max` characters of whole lines: a token cut in half would ground another name */
function wholeLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf("\n", max);
  return cut > 0 ? text.slice(0, cut) : "";
}
