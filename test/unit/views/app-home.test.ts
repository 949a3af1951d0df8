import type { KnownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import {
  type AppHomeInput,
  buildAppHome,
  clusterConsoleUrl,
  type FleetCluster,
  HOME_BLOCK_LIMIT,
  HOME_MAX_UNHEALTHY,
} from "../../../src/views/app-home.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";

const NOW = Date.UTC(2026, 0, 1, 12, 0);

function cluster(overrides: Partial<FleetCluster> & { uid: string }): FleetCluster {
  return {
    name: overrides.uid,
    projectUid: "p1",
    projectName: "Core",
    state: "Running",
    health: "Healthy",
    provider: "aws",
    ...overrides,
  };
}

function input(overrides: Partial<AppHomeInput> = {}): AppHomeInput {
  return {
    userId: "U1",
    fleet: { at: NOW - 90_000, clusters: [] },
    permissions: {
      launch: { allowed: true, hint: "ask an admin to add you to ALLOW_LAUNCH" },
      kubeconfig: { allowed: false, hint: "ask an admin to add you to ALLOW_KUBECONFIG" },
      subscribe: { allowed: true, hint: "" },
      ack: { allowed: true, hint: "" },
    },
    subscriptions: [],
    consoleUrl: "https://console.example.com/",
    now: NOW,
    ...overrides,
  };
}

/** Every mrkdwn and plain text of the view, in order. */
function texts(view: ReturnType<typeof buildAppHome>): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record.text === "string") out.push(record.text);
      for (const child of Object.values(record)) walk(child);
    }
  };
  walk(view.blocks);
  return out;
}

/** The message checker (src/views/limits.ts), minus the 50-block message limit (home tabs allow 100) and our channel links. */
function problems(view: ReturnType<typeof buildAppHome>): string[] {
  const masked = JSON.parse(
    JSON.stringify(view.blocks).replace(/<#[CG][A-Z0-9]+>/g, "#chan"),
  ) as KnownBlock[];
  return checkSlackLimits(masked).filter((problem) => !/ blocks > 50$/.test(problem));
}

describe("buildAppHome", () => {
  it("counts clusters by state and health per project and lists the unhealthy ones with links", () => {
    const view = buildAppHome(
      input({
        fleet: {
          at: NOW - 90_000,
          clusters: [
            cluster({ uid: "a" }),
            cluster({ uid: "b", health: "UnHealthy", name: "payments" }),
            cluster({ uid: "c", state: "Provisioning", health: "" }),
            cluster({ uid: "d", projectUid: "p2", projectName: "Edge", provider: "edge-native" }),
          ],
        },
      }),
    );
    expect(view.type).toBe("home");
    const all = texts(view).join("\n");
    expect(all).toContain(
      "4 clusters in 2 projects · 1 unhealthy · as of 2026-01-01 11:58 UTC (2 min ago)",
    );
    expect(all).toContain("*Core* · 3 clusters");
    expect(all).toMatch(/Running 2 · .*Provisioning 1/);
    expect(all).toMatch(/Healthy 1 · .*UnHealthy 1 · .*Unknown 1/);
    expect(all).toContain("*Edge* · 1 cluster");
    const unhealthy = (view.blocks as KnownBlock[]).find(
      (block) => block.type === "section" && block.text?.text.includes("*payments*"),
    );
    expect(unhealthy).toMatchObject({
      accessory: {
        type: "button",
        text: { text: "Open in Palette" },
        url: "https://console.example.com/projects/p1/clusters/b/overview",
      },
    });
    expect(problems(view)).toEqual([]);
  });

  it("shows permissions with the hint only when denied", () => {
    const all = texts(buildAppHome(input())).join("\n");
    expect(all).toContain("Launch clusters: yes");
    expect(all).not.toContain("ALLOW_LAUNCH");
    expect(all).toContain("Download kubeconfigs: no (ask an admin to add you to ALLOW_KUBECONFIG)");
  });

  it("lists subscriptions with channel links, kind, project and tag", () => {
    const view = buildAppHome(
      input({
        subscriptions: [
          { channel: "C222", kind: "alerts", project: "p1" },
          { channel: "C111", kind: "clusters", tag: "team:core" },
          { channel: "<!here>", kind: "all" },
        ],
      }),
    );
    const all = texts(view).join("\n");
    expect(all).toContain("<#C111> · clusters · tag `team:core`\n<#C222> · alerts · project `p1`");
    expect(all).toContain("`&lt;!here&gt;` · all");
    expect(all).not.toContain("<!here>");
    expect(problems(view)).toEqual([]);
  });

  it("says so when there are no subscriptions, or when they cannot be read", () => {
    expect(texts(buildAppHome(input())).join("\n")).toContain("`/palette subscribe`");
    expect(texts(buildAppHome(input({ subscriptions: undefined }))).join("\n")).toContain(
      "could not be read",
    );
  });

  it("escapes names that try to ping or link", () => {
    const view = buildAppHome(
      input({
        fleet: {
          at: NOW,
          clusters: [
            cluster({
              uid: "x",
              name: "<!channel> & <https://evil|click>",
              projectName: "<@U999>",
              health: "UnHealthy",
              state: "<!everyone>",
              provider: "<b>",
            }),
          ],
        },
      }),
    );
    const all = JSON.stringify(view.blocks);
    expect(all).not.toMatch(/<!|<@|<https/);
    expect(all).toContain("&lt;!channel&gt; &amp; &lt;https://evil|click&gt;");
    expect(problems(view)).toEqual([]);
  });

  it("stays within the home tab's block limit for a big fleet and says how many are hidden", () => {
    const clusters: FleetCluster[] = [];
    for (let p = 0; p < 60; p++) {
      for (let c = 0; c < 20; c++) {
        clusters.push(
          cluster({
            uid: `p${p}-c${c}`,
            projectUid: `p${p}`,
            projectName: `project-${String(p).padStart(2, "0")}`,
            health: c % 2 === 0 ? "UnHealthy" : "Healthy",
          }),
        );
      }
    }
    const subscriptions = Array.from({ length: 500 }, (_, i) => ({
      channel: `C${1000 + i}`,
      kind: "all",
      tag: "x".repeat(200),
    }));
    const view = buildAppHome(input({ fleet: { at: NOW, clusters }, subscriptions }));
    expect(view.blocks.length).toBeLessThanOrEqual(HOME_BLOCK_LIMIT);
    const all = texts(view).join("\n");
    expect(all).toContain("1200 clusters in 60 projects · 600 unhealthy");
    expect(all).toContain(`…and ${600 - HOME_MAX_UNHEALTHY} more`);
    expect(all).toContain("…and 45 more projects");
    expect(all).toMatch(/…and \d+ more/);
    expect(problems(view)).toEqual([]);
  });

  it("shows an unreadable fleet as a warning and still shows the rest", () => {
    const view = buildAppHome(input({ fleet: { error: "Palette did not answer in time." } }));
    const all = texts(view).join("\n");
    expect(all).toContain(":warning: The fleet could not be read: Palette did not answer in time.");
    expect(all).toContain("Your permissions");
    expect(problems(view)).toEqual([]);
  });

  it("links tenant-scoped clusters to the admin view and encodes UIDs", () => {
    expect(
      clusterConsoleUrl("https://c.example.com", cluster({ uid: "a b", projectUid: undefined })),
    ).toBe("https://c.example.com/admin/clusters/a%20b/overview");
  });
});
