import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.ts";
import { createPaletteClient } from "../../../src/palette/client.ts";
import { cloudConfigPath, machinesPath } from "../../../src/palette/cloud-config-path.ts";
import type { WireRequest } from "../../../src/palette/http.ts";
import { PROVIDERS } from "../../../src/palette/providers-list.ts";
import { Secret } from "../../../src/secret.ts";

describe("cloudConfigPath", () => {
  it("keeps the built-in cloud types on their own paths", () => {
    for (const provider of PROVIDERS) {
      expect(cloudConfigPath(provider, "cc1")).toBe(`/v1/cloudconfigs/${provider}/cc1`);
    }
    expect(machinesPath("aws", "cc1", "worker pool")).toBe(
      "/v1/cloudconfigs/aws/cc1/machinePools/worker%20pool/machines",
    );
  });

  it("reads custom cloud types under cloudTypes/{cloudType}", () => {
    expect(cloudConfigPath("nutanix", "cc2")).toBe("/v1/cloudconfigs/cloudTypes/nutanix/cc2");
    expect(machinesPath("nutanix", "cc2", "cp-pool")).toBe(
      "/v1/cloudconfigs/cloudTypes/nutanix/cc2/machinePools/cp-pool/machines",
    );
  });

  it("is what the client calls for a custom cloud's config and machines", async () => {
    const sent: WireRequest[] = [];
    const bodies = [
      { metadata: { uid: "cc2" }, spec: { machinePoolConfig: [{ name: "cp-pool" }] } },
      { items: [], listmeta: { continue: "" } },
    ];
    const palette = createPaletteClient({
      baseUrl: "http://palette.invalid",
      credentials: { kind: "apiKey", apiKey: new Secret("key-123") },
      logger: silentLogger,
      rateLimit: false,
      transport: {
        async send(request) {
          sent.push(request);
          return { status: 200, headers: {}, body: Buffer.from(JSON.stringify(bodies.shift())) };
        },
        async close() {},
      },
    });
    await palette.getCloudConfig("nutanix", "cc2", { projectUid: "p1" });
    await palette.listMachines("nutanix", "cc2", "cp-pool", { projectUid: "p1" });
    await palette.close();
    expect(sent.map((request) => request.path.split("?")[0])).toEqual([
      "/v1/cloudconfigs/cloudTypes/nutanix/cc2",
      "/v1/cloudconfigs/cloudTypes/nutanix/cc2/machinePools/cp-pool/machines",
    ]);
  });
});
