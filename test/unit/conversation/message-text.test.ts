import { describe, expect, it } from "vitest";
import { parseConsoleLink } from "../../../src/conversation/console-link.ts";
import { commandFromMessage } from "../../../src/conversation/message-text.ts";
import { withThreadCluster } from "../../../src/conversation/thread-cluster.ts";

describe("commandFromMessage", () => {
  it("takes the bot's mention out wherever it is, and leaves other people's", () => {
    expect(commandFromMessage("<@UBOT> nodes web-prod", "UBOT")).toBe("nodes web-prod");
    expect(commandFromMessage("<@UBOT|palette>  alerts ", "UBOT")).toBe("alerts");
    expect(commandFromMessage("<@UBOT> mute web 1d asked by <@U222>", "UBOT")).toBe(
      "mute web 1d asked by <@U222>",
    );
  });

  it("drops a /palette or palette prefix typed out of habit", () => {
    expect(commandFromMessage("/palette clusters prod", "UBOT")).toBe("clusters prod");
    expect(commandFromMessage("Palette cluster web", "UBOT")).toBe("cluster web");
    expect(commandFromMessage("<@UBOT>: cluster web", "UBOT")).toBe("cluster web");
  });

  it("undoes Slack's escapes and unwraps links to their URL", () => {
    expect(commandFromMessage("clusters tag:a&amp;b &lt;x&gt;", undefined)).toBe(
      "clusters tag:a&b <x>",
    );
    expect(
      commandFromMessage(
        "<@UBOT> cluster <https://console.example.com/x|console.example.com/x>",
        "UBOT",
      ),
    ).toBe("cluster https://console.example.com/x");
  });
});

describe("withThreadCluster", () => {
  const card = { uid: "c0ffee0000000000000000aa", name: "web-prod", project: "p1" };

  it("fills in the card's cluster where the verb wants one and none was named", () => {
    expect(withThreadCluster("nodes", card)).toBe("nodes c0ffee0000000000000000aa project:p1");
    expect(withThreadCluster("workloads kube-system", card)).toBe(
      "workloads c0ffee0000000000000000aa project:p1 kube-system",
    );
    expect(withThreadCluster("mute 1d kernel upgrades", card)).toBe(
      "mute c0ffee0000000000000000aa project:p1 1d kernel upgrades",
    );
    expect(withThreadCluster("kc", { ...card, project: "" })).toBe("kc c0ffee0000000000000000aa");
  });

  it("`@Palette why` in a card's thread asks about the card's cluster, with or without since", () => {
    expect(withThreadCluster("why", card)).toBe("why c0ffee0000000000000000aa project:p1");
    expect(withThreadCluster("why since 7d", card)).toBe(
      "why c0ffee0000000000000000aa project:p1 since 7d",
    );
    expect(withThreadCluster("timeline", card)).toBe(
      "timeline c0ffee0000000000000000aa project:p1",
    );
    expect(withThreadCluster("why web-prod since 2d", card)).toBe("why web-prod since 2d");
  });

  it("leaves a text alone that names a cluster, or whose verb takes none", () => {
    expect(withThreadCluster("nodes other-cluster", card)).toBe("nodes other-cluster");
    expect(withThreadCluster("mute web-prod 7d", card)).toBe("mute web-prod 7d");
    expect(withThreadCluster("alerts", card)).toBe("alerts");
    expect(withThreadCluster("clusters tag:prod", card)).toBe("clusters tag:prod");
    expect(withThreadCluster("nodes project:p2", card)).toBe(
      "nodes c0ffee0000000000000000aa project:p2",
    );
  });
});

describe("parseConsoleLink", () => {
  const console = "https://console.spectrocloud.com/";

  it("reads a project's cluster on any tab, a tenant cluster, and a project page", () => {
    expect(
      parseConsoleLink(
        "https://console.spectrocloud.com/projects/p1/clusters/c1/overview",
        console,
      ),
    ).toMatchObject({ kind: "cluster", projectUid: "p1", clusterUid: "c1" });
    expect(
      parseConsoleLink("https://console.spectrocloud.com/projects/p1/clusters/c1/nodes", console),
    ).toMatchObject({ kind: "cluster", clusterUid: "c1" });
    expect(
      parseConsoleLink("https://console.spectrocloud.com/admin/clusters/c9/overview", console),
    ).toMatchObject({ kind: "cluster", projectUid: undefined, clusterUid: "c9" });
    expect(
      parseConsoleLink("https://console.spectrocloud.com/projects/p1/dashboard", console),
    ).toMatchObject({ kind: "project", projectUid: "p1" });
  });

  it("is undefined for another host, another path, or a malformed link", () => {
    expect(parseConsoleLink("https://evil.example.com/projects/p1/clusters/c1", console)).toBe(
      undefined,
    );
    expect(parseConsoleLink("https://console.spectrocloud.com/admin/settings", console)).toBe(
      undefined,
    );
    expect(parseConsoleLink("not a url", console)).toBe(undefined);
    expect(
      parseConsoleLink("https://console.spectrocloud.com/projects/%E0%A4%A/clusters/c1", console),
    ).toBe(undefined);
    expect(
      parseConsoleLink(
        "https://palette.internal/console/projects/p1/clusters/c1/overview",
        "https://palette.internal/console/",
      ),
    ).toMatchObject({ kind: "cluster", clusterUid: "c1" });
  });
});
