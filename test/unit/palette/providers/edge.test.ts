import { describe, expect, it } from "vitest";
import { buildCreateBody } from "../../../../src/palette/providers/index.ts";
import { SAMPLE_ANSWERS } from "../../../support/launch-answers.ts";

describe("edge-native create body", () => {
  it("sends the cluster VIP as a VIP endpoint, as the Terraform provider does", () => {
    const built = buildCreateBody("edge-native", {
      ...SAMPLE_ANSWERS["edge-native"],
      edgeHosts: ["h1", "h2", "h3"],
      vip: "10.0.0.100",
    });
    if (!built.ok) throw new Error(JSON.stringify(built.errors));
    const spec = (built.body as unknown as { spec: { cloudConfig: Record<string, unknown> } }).spec;
    expect(spec.cloudConfig.controlPlaneEndpoint).toEqual({ host: "10.0.0.100", type: "VIP" });
  });

  it("leaves the endpoint to Palette when no VIP is given", () => {
    const built = buildCreateBody("edge-native", SAMPLE_ANSWERS["edge-native"]);
    if (!built.ok) throw new Error(JSON.stringify(built.errors));
    const spec = (built.body as unknown as { spec: { cloudConfig: Record<string, unknown> } }).spec;
    expect(spec.cloudConfig).not.toHaveProperty("controlPlaneEndpoint");
  });
});
