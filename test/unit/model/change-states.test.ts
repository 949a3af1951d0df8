import { describe, expect, it } from "vitest";
import {
  CHANGE_STATES,
  type ChangeStatus,
  canMove,
  OPEN_STATUSES,
} from "../../../src/model/change.ts";

/** The states of a change: every open one has a way out, every end is one the requester sees. */

const ALL = Object.keys(CHANGE_STATES) as ChangeStatus[];

describe("the states of a change", () => {
  it("every open state moves on, and no end moves at all", () => {
    for (const status of ALL) {
      const open = OPEN_STATUSES.includes(status);
      expect(CHANGE_STATES[status].moves.length > 0, status).toBe(open);
    }
  });

  it("every move lands on a known state, and every open state can reach an end", () => {
    const ends = ALL.filter((status) => !OPEN_STATUSES.includes(status));
    for (const status of OPEN_STATUSES) {
      const seen = new Set<ChangeStatus>([status]);
      const queue = [status];
      while (queue.length > 0) {
        for (const next of CHANGE_STATES[queue.shift()!].moves) {
          expect(ALL).toContain(next);
          if (!seen.has(next)) {
            seen.add(next);
            queue.push(next);
          }
        }
      }
      expect(
        ends.some((end) => seen.has(end)),
        status,
      ).toBe(true);
    }
  });

  it("a claimed change ends done, failed or unconfirmed-then-checked, and never goes back to being sent", () => {
    expect(canMove("executing", "unconfirmed")).toBe(true);
    expect(canMove("unconfirmed", "accepted")).toBe(true);
    expect(canMove("unconfirmed", "failed")).toBe(true);
    expect(canMove("unconfirmed", "executing")).toBe(false);
    expect(canMove("accepted", "executing")).toBe(false);
    expect(canMove("done", "failed")).toBe(false);
    for (const status of ALL) expect(CHANGE_STATES[status].requesterSees).not.toBe("");
  });
});
