import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "../../../src/model/why.ts";
import {
  actorName,
  auditEntry,
  botEntries,
  mergeTimeline,
  warningsFirst,
} from "../../../src/why/timeline.ts";

const T = Date.UTC(2026, 10, 25, 12);

describe("timeline entries", () => {
  it("names the actor as people know them: e-mail, name, service, or Palette", () => {
    const audit = (actor: Record<string, unknown>) => ({ spec: { actor } });
    expect(
      actorName(audit({ actorType: "user", user: { emailId: "a@b.c", firstName: "A" } })),
    ).toBe("a@b.c");
    expect(
      actorName(audit({ actorType: "user", user: { firstName: "Ann", lastName: "Lee" } })),
    ).toBe("Ann Lee");
    expect(actorName(audit({ actorType: "service", serviceName: "hubble" }))).toBe("hubble");
    expect(actorName(audit({ actorType: "system" }))).toBe("Palette");
  });

  it("audit update, deploy and action are writes; create, delete and activity are not; no time, no entry", () => {
    const at = new Date(T).toISOString();
    const of = (actionType: string) =>
      auditEntry({ metadata: { creationTimestamp: at }, spec: { actionType, actionMsg: "m" } });
    expect(["update", "deploy", "action"].map((t) => of(t)?.write)).toEqual([true, true, true]);
    expect(["create", "delete", "activity"].map((t) => of(t)?.write)).toEqual([
      false,
      false,
      false,
    ]);
    expect(auditEntry({ spec: { actionType: "update" } })).toBeUndefined();
  });

  it("a change is a write once sent, not when refused, rejected or expired; it carries requester and approver", () => {
    const change = (status: string, extra: Record<string, unknown> = {}) =>
      botEntries({
        launches: [],
        holds: [],
        freezes: [],
        changes: [
          {
            id: 1,
            verb: "scale",
            plan: {
              verb: "scale",
              cluster: {
                uid: "u",
                name: "web",
                projectUid: "p",
                cloudType: "aws",
                state: "Running",
              },
              pool: "worker",
              from: 3,
              to: 5,
            } as never,
            requester: "U1",
            status: status as never,
            createdAt: T,
            ...extra,
          },
        ],
      })[0]!;
    expect(change("done", { approver: "U2", acceptedAt: T + 5 })).toMatchObject({
      at: T + 5,
      write: true,
      approver: "U2",
      message: "scale worker 3 → 5",
      who: { kind: "slack", userId: "U1" },
    });
    expect(change("rejected").write).toBe(false);
    expect(change("expired").write).toBe(false);
    expect(change("failed").write).toBe(false);
    expect(change("failed", { acceptedAt: T, reason: "quota" })).toMatchObject({
      write: true,
      detail: "failed: quota",
    });
  });

  it("merges newest first, and with many events keeps every warning before normal ones", () => {
    const event = (at: number, severity: TimelineEntry["severity"]): TimelineEntry => ({
      at,
      source: "event",
      what: severity ?? "x",
      message: "",
      severity,
      write: false,
    });
    const events = Array.from({ length: 10 }, (_, i) =>
      event(T - i, i % 4 === 3 ? "warning" : "normal"),
    );
    const merged = mergeTimeline(events.slice(5), events.slice(0, 5));
    expect(merged.map((e) => e.at)).toEqual(events.map((e) => e.at));
    const { kept, hiddenNormal } = warningsFirst(merged, 4);
    expect(kept.filter((e) => e.severity === "warning")).toHaveLength(2);
    expect(kept).toHaveLength(4);
    expect(hiddenNormal).toBe(6);
    expect(kept.map((e) => e.at)).toEqual([T, T - 1, T - 3, T - 7]);
  });
});
