import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { type ContainerSpec, containerEnv, type Json } from "./container-env.ts";
import { imageEnv } from "./dockerfile.ts";
import { helm } from "./helm.ts";

/**
 * The chart at deploy/helm/palette-chatops as the real Helm renders it (test/support/helm.ts),
 * and what its Deployment's container gets as environment once the image and Kubernetes have
 * built it (test/support/container-env.ts).
 */

export const ROOT = join(import.meta.dirname, "..", "..");
export const CHART = join(ROOT, "deploy", "helm", "palette-chatops");
export const FIXTURES = join(ROOT, "test", "fixtures", "helm");
export const INSTALLS = ["default", "ha", "http", "existing-secret", "assistant"] as const;
export type Install = (typeof INSTALLS)[number];
export const RELEASE = "chatops";

export type { Json };

/**
 * `helm template` with the fixture's values, `--set-string`s and typed `--set`s (booleans,
 * numbers, lists); the objects, hooks included.
 */
export function render(
  install: Install | undefined,
  sets: string[] = [],
  typedSets: string[] = [],
): Json[] {
  const args = ["template", RELEASE, CHART, "--namespace", "bots"];
  if (install) args.push("--values", join(FIXTURES, `${install}.yaml`));
  for (const set of sets) args.push("--set-string", set);
  for (const set of typedSets) args.push("--set", set);
  return parseAllDocuments(helm(args))
    .map((document) => document.toJSON() as Json | null)
    .filter((object): object is Json => object !== null);
}

export function ofKind(objects: Json[], kind: string): Json[] {
  return objects.filter((object) => object.kind === kind);
}

export function theDeployment(objects: Json[]): Json {
  const [deployment, ...more] = ofKind(objects, "Deployment");
  if (!deployment || more.length > 0) throw new Error("not exactly one Deployment");
  return deployment;
}

export function botContainer(objects: Json[]): ContainerSpec & Json {
  const spec = (theDeployment(objects).spec as Json).template as Json;
  return ((spec.spec as Json).containers as Array<ContainerSpec & Json>)[0]!;
}

/**
 * The bot container's environment: the Dockerfile's ENV, then envFrom, then env, reading the
 * rendered ConfigMaps and Secrets and `operatorObjects` (the Secrets an operator creates).
 */
export function effectiveEnv(
  objects: Json[],
  operatorObjects: Json[] = [],
): Record<string, string> {
  return containerEnv(imageEnv(join(ROOT, "Dockerfile")), botContainer(objects), [
    ...objects,
    ...operatorObjects,
  ]);
}

export function secretObject(name: string, stringData: Record<string, string>): Json {
  return { apiVersion: "v1", kind: "Secret", metadata: { name }, type: "Opaque", stringData };
}

/**
 * The Secrets the fixtures name but do not create, as an operator would make them:
 * PostgreSQL's for the HA install, and the whole .env for the existing-Secret install (it
 * carries settings too: they must reach the bot, issue 32).
 */
export function operatorSecrets(
  options: { databaseUrl?: string; projects?: string; kubeconfig?: string } = {},
): Json[] {
  return [
    secretObject("palette-chatops-postgres", {
      DATABASE_URL:
        options.databaseUrl ?? "postgres://bot:REPLACE_ME@postgres.example:5432/chatops",
    }),
    secretObject("chatops-env", {
      SLACK_BOT_TOKEN: "xoxb-fixture-bot-token",
      SLACK_SIGNING_SECRET: "fixture-signing-secret",
      PALETTE_API_KEY: "fixture-palette-api-key",
      PALETTE_PROJECTS: options.projects ?? "fixture-project-uid",
      ALLOW_LAUNCH: "U0FIXLAUNCH",
      ALLOW_KUBECONFIG: options.kubeconfig ?? "U0FIXKUBE",
    }),
  ];
}
