import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import {
  at,
  effectiveEnv,
  type Json,
  operatorSecrets,
  render,
  theDeployment,
} from "../../support/chart.ts";
import { HELM_UNAVAILABLE } from "../../support/helm.ts";

/**
 * The chart's /tmp is a disk-backed emptyDir with a sizeLimit the kubelet enforces by eviction;
 * statfs inside the pod reports the node's disk, so the bot would grant an audit export that gets
 * the pod evicted. The bot is told the same limit (AUDIT_TMP_BYTES), rendered from the one value
 * (review of issue 37, finding 4).
 */

const MiB = 1_048_576;

function tmpSizeLimit(objects: Json[]): string {
  const volumes = at<Array<{ name: string; emptyDir?: { sizeLimit?: string } }>>(
    theDeployment(objects),
    "spec.template.spec.volumes",
  );
  return volumes.find((volume) => volume.name === "tmp")?.emptyDir?.sizeLimit ?? "none";
}

function botAuditTmpBytes(objects: Json[]): number | undefined {
  return loadConfig(effectiveEnv(objects, operatorSecrets()), { requireSlack: true }).auditTmpBytes;
}

describe.skipIf(HELM_UNAVAILABLE !== undefined)("the bot knows its /tmp's size limit", () => {
  it("by default: 1 GiB on the volume, and AUDIT_TMP_BYTES 1 GiB in the bot's config", () => {
    const objects = render("default");
    expect(tmpSizeLimit(objects)).toBe("1024Mi");
    expect(botAuditTmpBytes(objects)).toBe(1024 * MiB);
  });

  it("an operator's tmpVolume.sizeLimitMiB moves both", () => {
    const objects = render("ha", [], ["tmpVolume.sizeLimitMiB=4096"]);
    expect(tmpSizeLimit(objects)).toBe("4096Mi");
    expect(botAuditTmpBytes(objects)).toBe(4096 * MiB);
  });
});
