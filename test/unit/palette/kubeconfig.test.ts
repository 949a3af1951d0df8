import { describe, expect, it } from "vitest";
import { decodeKubeconfig, looksLikeBase64 } from "../../../src/palette/kubeconfig.ts";

const YAML = `apiVersion: v1
kind: Config
clusters:
- name: demo
  cluster:
    server: https://10.0.0.1:6443
`;

describe("decodeKubeconfig", () => {
  it("leaves a plain YAML body untouched", () => {
    const body = Buffer.from(YAML);
    expect(decodeKubeconfig(body)).toBe(body);
    expect(looksLikeBase64(YAML)).toBe(false);
  });

  it("decodes a base64 body, with or without line breaks", () => {
    const encoded = Buffer.from(YAML).toString("base64");
    expect(decodeKubeconfig(Buffer.from(encoded)).toString()).toBe(YAML);
    const wrapped = encoded.replace(/(.{60})/g, "$1\n");
    expect(decodeKubeconfig(Buffer.from(wrapped)).toString()).toBe(YAML);
  });

  it("decodes base64 wrapped in a JSON string", () => {
    const body = Buffer.from(JSON.stringify(Buffer.from(YAML).toString("base64")));
    expect(decodeKubeconfig(body).toString()).toBe(YAML);
  });

  it("keeps a base64-looking body that decodes to binary", () => {
    const binary = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).toString("base64");
    const body = Buffer.from(binary);
    expect(decodeKubeconfig(body)).toBe(body);
  });
});
