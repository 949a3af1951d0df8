import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { buildIdentity } from "../../src/app/identity.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackEmailOf } from "../../src/slack/user-email.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import {
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  startChangesHarness,
} from "../support/changes-harness.ts";
import { startFakeSlack } from "../support/fake-slack.ts";

/**
 * Palette's side of `/palette audit` is bounded in calls and in time (issue 31, item 17):
 * `user:<email>` filters on the bot's side, so on a large tenant whose entries seldom match it
 * paged Palette's whole audit. And `@person` under LINK_METHOD=email (no stored link) finds the
 * person's Palette user by their Slack e-mail. Signed Slack requests, the simulator's audit log.
 */

const CHANNEL = "C111";
const AUDITOR = "W444";
const EDDIE = "WEDDIE1";

afterEach(closeChangesHarnesses);

function seedEntries(h: Harness, count: number): void {
  const cluster = h.sim.control.addCluster({
    name: "audited",
    projectUid: h.project,
    provider: "aws",
  });
  for (let i = 0; i < count; i++) {
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: `entry ${i}`,
      email: i % 3 === 0 ? "editor@example.com" : "viewer@example.com",
      at: h.clock.now() - 60_000 - i * 100_000,
    });
  }
}

const auditCalls = (h: Harness) =>
  h.sim.control.requests().filter((request) => request.path === "/v1/audits");

async function exportAs(h: Harness, text: string): Promise<string> {
  const answer = await h.bot.command(text, { userId: AUDITOR, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1, 30_000);
  return JSON.stringify(reply!.body);
}

describe("/palette audit: Palette's side within bounds", () => {
  it("user:<email> that matches nothing stops after the pages AUDIT_EXPORT_MAX allows, and says so", async () => {
    const h = await startChangesHarness({
      simulator: { clusters: 6, seed: 31 },
      access: { allowAudit: [AUDITOR] },
    });
    h.bot.bot.edge.commandDeps.auditExportMax = 100;
    seedEntries(h, 1_000);
    h.sim.control.clearRequests();
    const text = await exportAs(h, "audit user:nobody@example.com since 7d");
    // 100 entries are 2 pages of 50, one more for the project's last short page
    expect(auditCalls(h).length).toBeLessThanOrEqual(3);
    expect(text).toContain("0 of Palette's");
    expect(text).toMatch(/stopped early/i);
    expect(text).toContain("pages of Palette");
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    expect(csv.split("\r\n").filter(Boolean).at(-1)).toMatch(/^export,.*stopped early/i);
  }, 60_000);

  it("stops after 10 minutes of reading Palette's audit, and says so", async () => {
    const h = await startChangesHarness({
      simulator: { clusters: 6, seed: 31 },
      access: { allowAudit: [AUDITOR] },
    });
    seedEntries(h, 1_000);
    // each page of Palette's audit takes two minutes (a slow tenant)
    h.beforeRead = async (request) => {
      if (request.path.startsWith("/v1/audits?")) h.clock.advance(2 * 60_000);
    };
    h.sim.control.clearRequests();
    const text = await exportAs(h, "audit user:nobody@example.com since 7d");
    expect(auditCalls(h).length).toBe(5);
    expect(text).toMatch(/stopped early/i);
    expect(text).toContain("10 minutes");
  }, 60_000);

  it("@person under LINK_METHOD=email finds their Palette user by their Slack e-mail", async () => {
    const fake = await startFakeSlack();
    fake.on("users.info", (call) => ({
      body: {
        ok: true,
        user: {
          id: call.body.user,
          profile: { email: call.body.user === EDDIE ? "editor@example.com" : undefined },
        },
      },
    }));
    const h = await startChangesHarness({
      simulator: { clusters: 6, seed: 31 },
      access: { allowAudit: [AUDITOR] },
      bot: (sim, palette, clock) => ({
        fake,
        identity: (db: SqlDb) =>
          buildIdentity(
            {
              mode: "linked",
              method: "email",
              keys: { current: new Secret(Buffer.alloc(32, 4).toString("base64")) },
            },
            {
              db,
              clock,
              logger: silentLogger,
              paletteApiUrl: sim.url,
              service: palette,
              emailOf: slackEmailOf(
                new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl)),
              ),
            },
          ),
      }),
    });
    seedEntries(h, 30);
    const asked: string[] = [];
    h.beforeRead = async (request) => {
      if (request.path.startsWith("/v1/audits?")) asked.push(request.path);
    };
    h.sim.control.clearRequests();
    const text = await exportAs(h, `audit <@${EDDIE}|eddie> since 7d`);
    expect(text).toContain("10 of Palette's");
    expect(asked.length).toBeGreaterThan(0);
    // Palette filters by the user: the page holds only theirs
    expect(asked.every((path) => path.includes("userUid="))).toBe(true);
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    const rows = csv.split("\r\n").filter((line) => line.startsWith("palette,"));
    expect(rows).toHaveLength(10);
    expect(rows.every((row) => row.includes("editor@example.com"))).toBe(true);
    await fake.close();
  }, 60_000);
});
