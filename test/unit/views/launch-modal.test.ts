import { describe, expect, it } from "vitest";
import { providerSpec } from "../../../src/palette/providers/index.ts";
import { PROVIDERS } from "../../../src/palette/providers-list.ts";
import { decodeLaunchMetadata, readFormState } from "../../../src/slack/launch-modal-state.ts";
import { launchCard, launchPhase } from "../../../src/views/launch-card.ts";
import { launchView, PROJECT_FIELD, PROVIDER_FIELD } from "../../../src/views/launch-modal.ts";

const metadata = { channel: "C1", requester: "U1" };
type AnyBlock = {
  type: string;
  block_id?: string;
  dispatch_action?: boolean;
  element?: Record<string, unknown>;
};

describe("launch modal", () => {
  it("step 1: project and a provider select that dispatches", () => {
    const view = launchView({ metadata, projects: [{ uid: "p1", name: "Dev" }] });
    const blocks = view.blocks as AnyBlock[];
    const provider = blocks.find((b) => b.block_id === PROVIDER_FIELD)!;
    expect(provider.dispatch_action).toBe(true);
    expect((provider.element!.options as unknown[]).length).toBe(11);
    const project = blocks.find((b) => b.block_id === PROJECT_FIELD)!;
    expect(project.element!.type).toBe("static_select");
    expect((project.element!.initial_option as { value: string }).value).toBe("p1");
    expect(
      launchView({ metadata, projects: [] }).blocks.find(
        (b) => (b as AnyBlock).block_id === PROJECT_FIELD,
      ),
    ).toMatchObject({ element: { type: "external_select" } });
  });

  for (const provider of PROVIDERS) {
    it(`${provider}: within Slack's modal limits, metadata carries the context`, () => {
      const view = launchView({ metadata: { ...metadata, project: "p1" }, projects: [], provider });
      expect(view.blocks.length).toBeLessThanOrEqual(100);
      expect(view.title.text.length).toBeLessThanOrEqual(24);
      expect(view.private_metadata!.length).toBeLessThanOrEqual(3000);
      expect(decodeLaunchMetadata(view.private_metadata)).toEqual({
        channel: "C1",
        requester: "U1",
        project: "p1",
        provider,
      });
      const ids = (view.blocks as AnyBlock[]).map((b) => b.block_id).filter(Boolean);
      for (const field of providerSpec(provider).fields) expect(ids).toContain(field.id);
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  it("rebuilds with what was typed and picked", () => {
    const state = readFormState({
      name: { name: { type: "plain_text_input", value: "kept" } },
      account: {
        account: {
          type: "external_select",
          selected_option: { value: "a1", text: { type: "plain_text", text: "Acct" } },
        },
      },
      controlPlanes: {
        controlPlanes: {
          type: "static_select",
          selected_option: { value: "3", text: { type: "plain_text", text: "3" } },
        },
      },
      [PROVIDER_FIELD]: {
        [PROVIDER_FIELD]: {
          type: "static_select",
          selected_option: { value: "gcp", text: { type: "plain_text", text: "GCP" } },
        },
      },
    });
    const view = launchView({ metadata, projects: [], provider: "gcp", state });
    const find = (id: string) =>
      (view.blocks as AnyBlock[]).find((b) => b.block_id === id)!.element!;
    expect(find("name").initial_value).toBe("kept");
    expect(find("account").initial_option).toMatchObject({ value: "a1", text: { text: "Acct" } });
    expect((find("controlPlanes").initial_option as { value: string }).value).toBe("3");
    expect(find("workers").initial_value).toBe("2");
  });

  it("bad private_metadata decodes to undefined, not a crash", () => {
    expect(decodeLaunchMetadata("not json")).toBeUndefined();
    expect(decodeLaunchMetadata('{"channel":1}')).toBeUndefined();
  });
});

describe("launch card", () => {
  it("maps Palette states to phases", () => {
    expect(launchPhase("Pending")).toBe("pending");
    expect(launchPhase("Provisioning")).toBe("provisioning");
    expect(launchPhase("Running")).toBe("running");
    expect(launchPhase("Failed")).toBe("failed");
  });

  it("escapes names and pings only real user ids", () => {
    const card = launchCard({
      name: "<!channel>",
      provider: "aws",
      projectUid: "p1",
      requester: "<!here>",
      clusterUid: "c1",
      state: "Running",
      consoleUrl: "https://console.example.com/",
    });
    const json = JSON.stringify(card.blocks);
    expect(json).not.toContain("<!channel>");
    expect(json).not.toContain("<!here>");
    expect(json).toContain("https://console.example.com/projects/p1/clusters/c1/overview");
    const ok = launchCard({
      name: "a",
      provider: "aws",
      projectUid: "",
      requester: "U123",
      state: "Running",
      consoleUrl: "x/",
    });
    expect(JSON.stringify(ok.blocks)).toContain("<@U123>");
  });
});
