import { readdirSync } from "node:fs";
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
/** The chart's own values files, one per real install (chart-testing's ci/ convention). */
export const CI_VALUES = join(CHART, "ci");
export const CI_INSTALLS = readdirSync(CI_VALUES)
  .filter((name) => name.endsWith("-values.yaml"))
  .sort();

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
  const args = templateArgs(install && join(FIXTURES, `${install}.yaml`));
  for (const set of sets) args.push("--set-string", set);
  for (const set of typedSets) args.push("--set", set);
  return parseManifests(helm(args));
}

/** `helm template`'s arguments for the release in namespace bots, with a values file or none */
export function templateArgs(valuesFile?: string): string[] {
  const args = ["template", RELEASE, CHART, "--namespace", "bots"];
  if (valuesFile) args.push("--values", valuesFile);
  return args;
}

/** `helm template` with one of the chart's ci/ values files. */
export function renderCi(file: string, typedSets: string[] = []): Json[] {
  const args = templateArgs(join(CI_VALUES, file));
  for (const set of typedSets) args.push("--set", set);
  return parseManifests(helm(args));
}

/**
 * Helm's output as objects. The YAML parser's errors fail it: a duplicate key (the doctor's
 * `app.kubernetes.io/component` twice, issue 38) is an error there, which the API server would
 * settle silently by keeping the last one.
 */
export function parseManifests(text: string): Json[] {
  const documents = parseAllDocuments(text);
  const errors = documents.flatMap((document) => document.errors.map((error) => error.message));
  if (errors.length > 0) throw new Error(`the rendered YAML does not parse: ${errors.join("; ")}`);
  return documents
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

/** Follows a dotted path through objects and arrays; throws naming the path when it is missing. */
export function at<T = unknown>(value: unknown, path: string): T {
  let current: unknown = value;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object") throw new Error(`no ${path} (at ${key})`);
    current = (current as Json)[key];
  }
  if (current === undefined) throw new Error(`no ${path}`);
  return current as T;
}

/** The model class of kubernetes-models for an object, e.g. apps/v1 Deployment. */
export async function modelOf(
  object: Json,
): Promise<(new (data: Json) => { validate(): void }) | undefined> {
  const apiVersion = String(object.apiVersion);
  const path = apiVersion.includes("/") ? apiVersion : `v1`;
  try {
    const module = (await import(`kubernetes-models/${path}/${String(object.kind)}`)) as Record<
      string,
      new (
        data: Json,
      ) => { validate(): void }
    >;
    return module[String(object.kind)];
  } catch {
    return undefined;
  }
}

/** Helm's error for `helm template` with these arguments, or "" when it renders. */
export function helmRefusal(args: string[]): string {
  try {
    helm(["template", RELEASE, CHART, "--namespace", "bots", ...args]);
    return "";
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
}
