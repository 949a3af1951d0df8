import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parseAllDocuments } from "yaml";

/**
 * The part of `kustomize build` the manifests in deploy/kubernetes use, in plain code, so the
 * manifest tests check the rendered overlay on a machine without kubectl: `resources` (files and
 * directories), `patches` that are either a JSON patch (RFC 6902) with a `target` or a `$patch:
 * delete` of a whole resource, `labels` (without selectors) and `images`. Anything else throws
 * instead of rendering something kustomize would not; where kubectl exists, the manifest test
 * compares this rendering with `kubectl kustomize`.
 */

export type Json = Record<string, unknown>;

interface Kustomization {
  resources?: string[];
  patches?: Array<{ path: string; target?: Target }>;
  labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
}

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

interface Operation {
  op: string;
  path: string;
  value?: unknown;
}

const HANDLED = new Set(["apiVersion", "kind", "resources", "patches", "labels", "images"]);

export function loadYaml(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((document) => document.toJSON() as unknown)
    .filter((document) => document !== null);
}

export function kustomizeBuild(dir: string): Json[] {
  const [kustomization] = loadYaml(join(dir, "kustomization.yaml")) as [Kustomization & Json];
  for (const field of Object.keys(kustomization)) {
    if (!HANDLED.has(field)) throw new Error(`${dir}: kustomization field ${field} not handled`);
  }
  let resources = (kustomization.resources ?? []).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? kustomizeBuild(path) : (loadYaml(path) as Json[]);
  });
  for (const patch of kustomization.patches ?? []) {
    const documents = loadYaml(join(dir, patch.path));
    if (patch.target) {
      const operations = documents[0] as Operation[];
      resources = resources.map((resource) =>
        matches(resource, patch.target!) ? applyJsonPatch(resource, operations) : resource,
      );
    } else {
      const [deletion] = documents as [Json];
      if (deletion.$patch !== "delete") {
        throw new Error(`${patch.path}: only a $patch: delete is handled without a target`);
      }
      const before = resources.length;
      resources = resources.filter((resource) => !sameResource(resource, deletion));
      if (resources.length === before) throw new Error(`${patch.path}: deletes nothing`);
    }
  }
  for (const { pairs, includeSelectors } of kustomization.labels ?? []) {
    if (includeSelectors) throw new Error(`${dir}: labels with includeSelectors not handled`);
    resources = resources.map((resource) => {
      const copy = structuredClone(resource);
      const metadata = copy.metadata as Json;
      metadata.labels = { ...(metadata.labels as Json | undefined), ...pairs };
      return copy;
    });
  }
  for (const image of kustomization.images ?? []) {
    resources = resources.map((resource) => retag(resource, image));
  }
  return resources;
}

function matches(resource: Json, target: Target): boolean {
  const [group, version] = String(resource.apiVersion).includes("/")
    ? String(resource.apiVersion).split("/")
    : ["", String(resource.apiVersion)];
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === resource.kind) &&
    (target.name === undefined || target.name === (resource.metadata as Json).name)
  );
}

function sameResource(a: Json, b: Json): boolean {
  return a.kind === b.kind && (a.metadata as Json).name === (b.metadata as Json).name;
}

function retag(resource: Json, image: { name: string; newName?: string; newTag?: string }): Json {
  const copy = structuredClone(resource);
  const containers = ((copy.spec as Json | undefined)?.template as Json | undefined)?.spec as
    | { containers?: Array<{ image: string }> }
    | undefined;
  for (const container of containers?.containers ?? []) {
    const [name, tag] = container.image.split(":");
    if (name !== image.name) continue;
    container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
  }
  return copy;
}

/** RFC 6902 add, remove, replace and test; a failed test or a missing path throws, as kustomize. */
export function applyJsonPatch(document: Json, operations: Operation[]): Json {
  const result = structuredClone(document);
  for (const { op, path, value } of operations) {
    const keys = path
      .split("/")
      .slice(1)
      .map((key) => key.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = keys.pop();
    if (last === undefined) throw new Error(`${op} ${path}: the whole document is not handled`);
    let parent: unknown = result;
    for (const key of keys) {
      parent = (parent as Record<string, unknown> | undefined)?.[key];
      if (parent === null || typeof parent !== "object")
        throw new Error(`${op} ${path}: no parent`);
    }
    const record = parent as Record<string, unknown>;
    const list = Array.isArray(parent) ? (parent as unknown[]) : undefined;
    const index = list && last === "-" ? list.length : Number(last);
    const exists = list
      ? Number.isInteger(index) && index >= 0 && index < list.length
      : last in record;
    switch (op) {
      case "test":
        if (!exists || !isDeepStrictEqual(record[last], value)) {
          throw new Error(`test ${path} failed: ${JSON.stringify(record[last])}`);
        }
        break;
      case "replace":
        if (!exists) throw new Error(`replace ${path}: nothing there`);
        record[last] = structuredClone(value);
        break;
      case "remove":
        if (!exists) throw new Error(`remove ${path}: nothing there`);
        if (list) list.splice(index, 1);
        else delete record[last];
        break;
      case "add":
        if (list) {
          if (!Number.isInteger(index) || index < 0 || index > list.length) {
            throw new Error(`add ${path}: no such position`);
          }
          list.splice(index, 0, structuredClone(value));
        } else record[last] = structuredClone(value);
        break;
      default:
        throw new Error(`JSON patch op ${op} not handled`);
    }
  }
  return result;
}
