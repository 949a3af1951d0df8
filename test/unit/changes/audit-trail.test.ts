import { describe, expect, it } from "vitest";
import { type AuditSubject, auditRow, SERVICE_ACCOUNT } from "../../../src/changes/audit-trail.ts";

const subject: AuditSubject = {
  verb: "scale",
  cluster: { uid: "c-1", name: "prod-1", projectUid: "p-1" },
  requester: "W1",
  changeId: 7,
  approver: "W2",
};

const columns = {
  action: "change",
  target: "scale prod-1",
  changeId: 7,
  clusterUid: "c-1",
  projectUid: "p-1",
  requester: "W1",
};

describe("auditRow: one row per step of a change", () => {
  it("a request is the requester's, created, saying whether it waits for approval", () => {
    expect(
      auditRow({ ...subject, approver: undefined }, { step: "request", needsApproval: true }),
    ).toEqual({
      ...columns,
      userId: "W1",
      outcome: "created",
      step: "request",
      detail: '{"needsApproval":true}',
    });
  });

  it("a refusal is the refused person's, denied, with its reason; an approver's names them", () => {
    const requester = auditRow(
      { ...subject, changeId: undefined, approver: undefined },
      { step: "refused", reason: "freeze", by: "W1", detail: { freezeId: 3 } },
    );
    expect(requester).toMatchObject({ userId: "W1", outcome: "denied", step: "refused" });
    expect(requester).not.toHaveProperty("changeId");
    expect(requester).not.toHaveProperty("approver");
    expect(JSON.parse(requester.detail!)).toEqual({ reason: "freeze", freezeId: 3 });
    const approver = auditRow(
      { ...subject, approver: undefined },
      { step: "refused", reason: "permission", by: "W9" },
    );
    expect(approver).toMatchObject({ userId: "W9", approver: "W9", requester: "W1" });
  });

  it("approval, rejection and expiry", () => {
    expect(auditRow(subject, { step: "approved", by: "W2" })).toMatchObject({
      userId: "W2",
      outcome: "granted",
      approver: "W2",
    });
    expect(auditRow(subject, { step: "rejected", by: "W3" })).toMatchObject({
      userId: "W3",
      outcome: "rejected",
      approver: "W3",
    });
    const expired = auditRow({ ...subject, approver: undefined }, { step: "expired" });
    expect(expired).toMatchObject({ userId: "W1", outcome: "expired", step: "expired" });
    expect(expired).not.toHaveProperty("detail");
  });

  it("Palette's answer names the Palette user, the service account when nobody's own", () => {
    expect(auditRow(subject, { step: "answer", outcome: "accepted" })).toMatchObject({
      ...columns,
      userId: "W1",
      approver: "W2",
      outcome: "accepted",
      paletteUser: SERVICE_ACCOUNT,
    });
    expect(
      auditRow(subject, {
        step: "answer",
        outcome: "failed",
        paletteUser: "vera@example.com",
        detail: { reason: "Palette refused" },
      }),
    ).toMatchObject({ paletteUser: "vera@example.com", outcome: "failed" });
  });

  it("an end keeps its line; an end with another name is failed, its name kept", () => {
    const done = auditRow(subject, {
      step: "end",
      outcome: "done",
      line: "5 Running",
      took: "4 s",
    });
    expect(done).toMatchObject({ outcome: "done", step: "end" });
    expect(JSON.parse(done.detail!)).toEqual({ line: "5 Running", took: "4 s" });
    const odd = auditRow(subject, { step: "end", outcome: "vanished", line: "gone" });
    expect(odd.outcome).toBe("failed");
    expect(JSON.parse(odd.detail!)).toEqual({ line: "gone", end: "vanished" });
  });
});
