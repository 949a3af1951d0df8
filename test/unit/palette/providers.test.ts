import AjvDraft04 from "ajv-draft-04";
import { describe, expect, it } from "vitest";
import {
  buildCreateBody,
  PROVIDER_SPECS,
  type RawValues,
  redactBody,
} from "../../../src/palette/providers/index.ts";
import { PROVIDERS, type Provider } from "../../../src/palette/providers-list.ts";
import { readFixtureJson } from "../../support/fixtures.ts";
import { SAMPLE_ANSWERS } from "../../support/launch-answers.ts";

interface OpenApi {
  paths: Record<
    string,
    { post?: { parameters?: Array<{ in: string; schema?: { $ref: string } }> } }
  >;
  definitions: Record<string, { properties?: { spec?: { required?: string[] } } }>;
}

const doc = readFixtureJson<OpenApi>("palette-api", "openapi-subset.json");

/** the create definition of a provider, found from its POST path as the API declares it */
function createDefinition(provider: Provider): string {
  const body = doc.paths[`/v1/spectroclusters/${provider}`]?.post?.parameters?.find(
    (p) => p.in === "body",
  );
  const ref = body?.schema?.$ref;
  if (!ref) throw new Error(`no create body for ${provider}`);
  return ref.replace("#/definitions/", "");
}

// The spec requires `spec.cloudType` on several create bodies but never defines it (and the Go
// SDK never sends it): that one requirement is relaxed, nothing else.
const relaxed = structuredClone(doc);
for (const definition of Object.values(relaxed.definitions)) {
  const required = definition.properties?.spec?.required;
  if (required) definition.properties!.spec!.required = required.filter((r) => r !== "cloudType");
}
// CommonJS default export: the class sits on `.default` under NodeNext.
const Ajv = AjvDraft04.default;
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...relaxed, id: "palette" } as object, "palette");

function validatorFor(provider: Provider) {
  const validate = ajv.getSchema(`palette#/definitions/${createDefinition(provider)}`);
  if (!validate) throw new Error(`no validator for ${provider}`);
  return validate;
}

describe("provider catalogue", () => {
  it("covers all eleven providers", () => {
    expect(Object.keys(PROVIDER_SPECS).sort()).toEqual([...PROVIDERS].sort());
    expect(PROVIDER_SPECS.eks.cloudAccount).toBe("aws");
    expect(PROVIDER_SPECS.aks.cloudAccount).toBe("azure");
    expect(PROVIDER_SPECS.gke.cloudAccount).toBe("gcp");
    expect(PROVIDER_SPECS["edge-native"].cloudAccount).toBeUndefined();
    expect(PROVIDER_SPECS.virtual.cloudAccount).toBeUndefined();
  });

  it("keeps labels within Slack's limits and ids unique per form", () => {
    for (const spec of Object.values(PROVIDER_SPECS)) {
      const ids = spec.fields.map((f) => f.id);
      expect(new Set(ids).size).toBe(ids.length);
      // the modal's own blocks: a field of the same id would be read as the project/provider
      expect(ids).not.toContain("project");
      expect(ids).not.toContain("provider");
      for (const f of spec.fields) expect(f.label.length).toBeLessThanOrEqual(48);
    }
  });

  for (const provider of PROVIDERS) {
    it(`${provider}: the body built from valid answers validates against ${createDefinition(provider)}`, () => {
      const result = buildCreateBody(provider, SAMPLE_ANSWERS[provider]);
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      const validate = validatorFor(provider);
      const valid = validate(result.body);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
      const spec = result.body.spec as {
        machinepoolconfig: Array<{ poolConfig?: { isControlPlane?: boolean } }>;
      };
      expect(spec.machinepoolconfig.length).toBeGreaterThan(0);
      const hasCp = spec.machinepoolconfig.some((p) => p.poolConfig?.isControlPlane === true);
      expect(hasCp).toBe(PROVIDER_SPECS[provider].controlPlanePool);
      expect(result.body.metadata.name).toBe(SAMPLE_ANSWERS[provider].name);
      expect("cloudType" in result.body.spec).toBe(false);
    });
  }

  it("the schema check can fail: a body missing a required field is rejected", () => {
    const result = buildCreateBody("aws", SAMPLE_ANSWERS.aws);
    if (!result.ok) throw new Error("expected valid");
    const broken = structuredClone(result.body) as unknown as {
      spec: { cloudConfig: Record<string, unknown> };
    };
    delete broken.spec.cloudConfig.region;
    expect(validatorFor("aws")(broken)).toBe(false);
  });
});

describe("validation messages", () => {
  const base: RawValues = SAMPLE_ANSWERS.aws;
  const errorsOf = (raw: RawValues) => {
    const result = PROVIDER_SPECS.aws.validate(raw);
    return result.ok ? {} : result.errors;
  };

  it("rejects names that are not DNS labels", () => {
    for (const name of ["Prod", "-a", "a-", "a_b", "x".repeat(64), "<!channel>"]) {
      expect(errorsOf({ ...base, name }).name, name).toMatch(/Cluster name/);
    }
    expect(errorsOf({ ...base, name: "a".repeat(63) }).name).toBeUndefined();
  });

  it("says which field is missing", () => {
    const errors = errorsOf({ ...base, region: null, account: undefined, instanceType: "  " });
    expect(errors.region).toBe("Region is required.");
    expect(errors.account).toBe("Cloud account is required.");
    expect(errors.instanceType).toBe("Instance type is required.");
  });

  it("keeps counts in range", () => {
    expect(errorsOf({ ...base, workers: "0" }).workers).toMatch(/from 1 to 50/);
    expect(errorsOf({ ...base, workers: "2.5" }).workers).toMatch(/whole number/);
    expect(errorsOf({ ...base, workers: "lots" }).workers).toMatch(/whole number/);
    expect(errorsOf({ ...base, controlPlanes: "2" }).controlPlanes).toMatch(/1, 3 or 5/);
  });

  it("parses tags into Palette labels", () => {
    const result = buildCreateBody("aws", { ...base, tags: "env:dev, core  team:platform" });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.body.metadata.labels).toEqual({
      env: "dev",
      core: "spectro__tag",
      team: "platform",
    });
    expect(errorsOf({ ...base, tags: "bad<tag>" }).tags).toMatch(/not valid/);
  });

  it("edge-native needs a VIP with several hosts and disjoint pools", () => {
    const raw = { ...SAMPLE_ANSWERS["edge-native"], edgeHosts: ["h1", "h2", "h3"], vip: null };
    const result = PROVIDER_SPECS["edge-native"].validate(raw);
    expect(result.ok ? {} : result.errors).toMatchObject({ vip: expect.stringMatching(/VIP/) });
    const overlap = PROVIDER_SPECS["edge-native"].validate({
      ...raw,
      vip: "10.0.0.5",
      workerHosts: ["h1"],
    });
    expect(overlap.ok ? {} : overlap.errors).toMatchObject({ workerHosts: expect.any(String) });
  });

  it("rejects a private key pasted as an SSH key", () => {
    const errors = PROVIDER_SPECS.azure.validate({
      ...SAMPLE_ANSWERS.azure,
      sshKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
    });
    expect(errors.ok ? {} : errors.errors).toMatchObject({
      sshKey: expect.stringMatching(/public key/),
    });
  });
});

describe("redactBody", () => {
  it("drops key-, secret- and password-like properties at any depth", () => {
    const result = buildCreateBody("azure", SAMPLE_ANSWERS.azure);
    if (!result.ok) throw new Error("expected valid");
    const redacted = JSON.stringify(redactBody(result.body));
    expect(redacted).not.toContain("ssh-ed25519");
    expect(redacted).not.toContain("sshKey");
    expect(
      redactBody({ a: { password: "x", apiKey: "y", nested: [{ secretRef: 1, ok: 2 }] } }),
    ).toEqual({
      a: { nested: [{ ok: 2 }] },
    });
  });
});
