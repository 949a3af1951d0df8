import { describe, expect, it } from "vitest";
import { Metrics, paletteLabel } from "../../../src/http/metrics.ts";
import { prefixLabel, ruleFor } from "../../../src/palette/rate-limits.ts";
import { sampleValue } from "../../support/prometheus.ts";

/** The prefix the Palette client reports for a path. */
const clientPrefix = (path: string) => prefixLabel(ruleFor(path));

describe("Palette prefixes as metric labels", () => {
  it.each([
    ["/v1/dashboard/spectroclusters/search", "/v1/dashboard"],
    ["/v1/dashboard/spectroclusters/abc123/overview?x=1", "/v1/dashboard"],
    ["/v1/spectroclusters/abc123", "/v1/spectroclusters"],
    ["/v1/spectroclusters/abc123/assets/kubeconfig", "/v1/spectroclusters/{uid}/assets"],
    ["/v1/cloudconfigs/aws/u1/machinePools/p/machines", "/v1/cloudconfigs"],
    ["/v1/auth/authenticate", "/v1/auth"],
    ["/healthz", "other"],
    ["", "other"],
    ["/v1/<!channel>/x", "other"],
  ])("%s → %s", (path, prefix) => {
    expect(paletteLabel(clientPrefix(path))).toBe(prefix);
  });
});

describe("Metrics", () => {
  it("counts commands by verb and outcome and folds unknown verbs into other", async () => {
    const metrics = new Metrics({ defaultMetrics: false, knownVerbs: ["clusters", "help"] });
    metrics.commandHandled("clusters", "ok");
    metrics.commandHandled("Clusters", "ok");
    metrics.commandHandled("clustrs", "invalid");
    metrics.commandHandled("<script>", "invalid");
    const text = await metrics.render();
    expect(sampleValue(text, 'palette_chatops_commands_total{verb="clusters",outcome="ok"}')).toBe(
      2,
    );
    expect(
      sampleValue(text, 'palette_chatops_commands_total{verb="other",outcome="invalid"}'),
    ).toBe(2);
    expect(text).not.toContain("clustrs");
  });

  it("reduces Palette endpoints to prefixes and counts 429s and retries", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.paletteCall(clientPrefix("/v1/spectroclusters/uid-1/assets/kubeconfig"), 200);
    metrics.paletteCall(clientPrefix("/v1/spectroclusters/uid-2/assets/kubeconfig"), 429);
    metrics.paletteRetry(clientPrefix("/v1/spectroclusters/uid-2/assets/kubeconfig"));
    metrics.paletteCall("/v1/spectroclusters/uid-3", 200); // a UID is never a label
    metrics.paletteCall("/v1/dashboard", "error");
    const text = await metrics.render();
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_requests_total{prefix="/v1/spectroclusters/{uid}/assets",status="200"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_rate_limited_total{prefix="/v1/spectroclusters/{uid}/assets"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_retries_total{prefix="/v1/spectroclusters/{uid}/assets"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_requests_total{prefix="/v1/dashboard",status="error"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(text, 'palette_chatops_palette_requests_total{prefix="other",status="200"}'),
    ).toBe(1);
    expect(text).not.toContain("uid-3");
    expect(text).not.toContain("uid-1");
  });

  it("counts poll cycles by kind and keeps each kind's last Palette call count", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.pollCycle("reconcile", "ok", 612);
    metrics.pollCycle("incremental", "ok", 6);
    metrics.pollCycle("incremental", "ok", 7);
    metrics.pollCycle("incremental", "error", 2);
    metrics.pollCycle("sideways" as "incremental", "ok", 1);
    const text = await metrics.render();
    expect(
      sampleValue(text, 'palette_chatops_poll_cycles_total{kind="incremental",outcome="ok"}'),
    ).toBe(2);
    expect(
      sampleValue(text, 'palette_chatops_poll_cycles_total{kind="reconcile",outcome="ok"}'),
    ).toBe(1);
    expect(
      sampleValue(text, 'palette_chatops_poll_cycles_total{kind="incremental",outcome="error"}'),
    ).toBe(1);
    expect(sampleValue(text, 'palette_chatops_poll_palette_calls{kind="incremental"}')).toBe(7);
    expect(sampleValue(text, 'palette_chatops_poll_palette_calls{kind="reconcile"}')).toBe(612);
    expect(text).not.toContain("sideways");
    expect(sampleValue(text, "palette_chatops_poll_reconciling")).toBe(0);
    metrics.pollReconciling(true);
    expect(sampleValue(await metrics.render(), "palette_chatops_poll_reconciling")).toBe(1);
    metrics.pollReconciling(false);
    expect(sampleValue(await metrics.render(), "palette_chatops_poll_reconciling")).toBe(0);
    metrics.reconciled(2.5);
    metrics.radar({ repavesSeconds: 1.5, repavesStoreSeconds: 0.25, requestsPerMinute: 131 });
    const radarText = await metrics.render();
    expect(sampleValue(radarText, "palette_chatops_poll_reconcile_last_seconds")).toBe(2.5);
    expect(sampleValue(radarText, "palette_chatops_radar_repaves_last_seconds")).toBe(1.5);
    expect(sampleValue(radarText, "palette_chatops_radar_repaves_store_last_seconds")).toBe(0.25);
    expect(sampleValue(radarText, "palette_chatops_radar_requests_per_minute")).toBe(131);
  });

  it("observes ack latency, poll cycles, logins, refreshes and Slack calls", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.observeAck(0.02);
    metrics.observeAck(4);
    metrics.observeAck(Number.NaN);
    metrics.pollCompleted(1.5, 42);
    metrics.pollCompleted(0.3, 7, "error");
    metrics.tokenRefreshed();
    metrics.paletteLogin("error");
    metrics.slackCall("chat.postMessage", "rate_limited");
    metrics.conversation("app_mention", "answered");
    metrics.conversation("app_mention", "duplicate");
    metrics.conversation("app_mention", "answered");
    const text = await metrics.render();
    expect(
      sampleValue(
        text,
        'palette_chatops_slack_conversations_total{event="app_mention",outcome="answered"}',
      ),
    ).toBe(2);
    expect(sampleValue(text, "palette_chatops_ack_seconds_count")).toBe(2);
    expect(sampleValue(text, 'palette_chatops_ack_seconds_bucket{le="0.025"}')).toBe(1);
    expect(sampleValue(text, 'palette_chatops_ack_seconds_bucket{le="3"}')).toBe(1);
    expect(sampleValue(text, "palette_chatops_poll_clusters")).toBe(42);
    expect(sampleValue(text, 'palette_chatops_poll_duration_seconds_count{outcome="error"}')).toBe(
      1,
    );
    expect(sampleValue(text, 'palette_chatops_palette_token_refreshes_total{outcome="ok"}')).toBe(
      1,
    );
    expect(sampleValue(text, 'palette_chatops_palette_logins_total{outcome="error"}')).toBe(1);
    expect(
      sampleValue(
        text,
        'palette_chatops_slack_calls_total{method="chat.postmessage",outcome="rate_limited"}',
      ),
    ).toBe(1);
  });

  it("reads the outbox at scrape time and survives a failing source", async () => {
    let stats = { depth: 3, oldestAgeSeconds: 12.5 };
    const metrics = new Metrics({ defaultMetrics: false, outbox: () => stats });
    let text = await metrics.render();
    expect(sampleValue(text, "palette_chatops_outbox_depth")).toBe(3);
    expect(sampleValue(text, "palette_chatops_outbox_oldest_age_seconds")).toBe(12.5);
    stats = { depth: 0, oldestAgeSeconds: 0 };
    text = await metrics.render();
    expect(sampleValue(text, "palette_chatops_outbox_depth")).toBe(0);
    metrics.setOutboxSource(() => {
      throw new Error("db closed");
    });
    text = await metrics.render();
    expect(text).toContain("palette_chatops_outbox_depth");
  });

  it("counts sender pauses by reason, shows whether it is paused, and how many dead letters wait", async () => {
    const metrics = new Metrics({
      defaultMetrics: false,
      outbox: () => ({ depth: 2, oldestAgeSeconds: 1, deadLetters: 5, parked: 3 }),
    });
    metrics.senderPaused("invalid_auth");
    let text = await metrics.render();
    expect(
      sampleValue(text, 'palette_chatops_slack_sender_paused_total{reason="invalid_auth"}'),
    ).toBe(1);
    expect(sampleValue(text, "palette_chatops_slack_sender_paused")).toBe(1);
    expect(sampleValue(text, "palette_chatops_outbox_dead_letters")).toBe(5);
    expect(sampleValue(text, "palette_chatops_outbox_parked")).toBe(3);
    metrics.senderResumed();
    metrics.senderPaused("Not A <Code>");
    metrics.senderResumed();
    text = await metrics.render();
    expect(sampleValue(text, "palette_chatops_slack_sender_paused")).toBe(0);
    expect(sampleValue(text, 'palette_chatops_slack_sender_paused_total{reason="other"}')).toBe(1);
  });

  it("keeps two instances apart and adds process metrics to its own registry only", async () => {
    const a = new Metrics();
    const b = new Metrics({ defaultMetrics: false });
    a.commandHandled("help", "ok");
    expect(await a.render()).toContain("process_cpu_user_seconds_total");
    const other = await b.render();
    expect(other).not.toContain("process_cpu_user_seconds_total");
    expect(other).not.toContain('verb="help"');
    expect(a.contentType).toContain("text/plain");
  });
});

describe("leader metrics", () => {
  it("say whether this replica leads, how old its last renewal is and when its lease ends", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    let stats = { leading: true, leaseAgeSeconds: 2.5, expiresInSeconds: 12.5 };
    metrics.setLeaderSource(() => stats);
    let text = await metrics.render();
    expect(sampleValue(text, "palette_chatops_leader")).toBe(1);
    expect(sampleValue(text, "palette_chatops_leader_lease_age_seconds")).toBe(2.5);
    expect(sampleValue(text, "palette_chatops_leader_lease_expires_in_seconds")).toBe(12.5);
    stats = { leading: false, leaseAgeSeconds: 0, expiresInSeconds: 0 };
    text = await metrics.render();
    expect(sampleValue(text, "palette_chatops_leader")).toBe(0);
    expect(sampleValue(text, "palette_chatops_leader_lease_expires_in_seconds")).toBe(0);
  });
});
