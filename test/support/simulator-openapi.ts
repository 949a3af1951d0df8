import AjvModule, { type ValidateFunction } from "ajv-draft-04";
import { readFixtureJson } from "./fixtures.ts";

/**
 * Validates bodies against the real Palette definitions in test/fixtures/palette-api/openapi-subset.json
 * (Swagger 2.0 definitions are Draft-4 JSON Schema). The definitions are registered under one id
 * so `#/definitions/...` refs resolve. The one relaxation: `spec.cloudType` is listed as required
 * on several create entities but never defined (see the examples README), so it is dropped.
 */

type Json = Record<string, unknown>;

export const openapi = readFixtureJson<{
  paths: Record<string, Record<string, Json>>;
  definitions: Record<string, Json>;
}>("palette-api", "openapi-subset.json");

function relaxUndefinedRequired(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) relaxUndefinedRequired(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as Json;
  if (Array.isArray(record.required) && typeof record.properties === "object") {
    const props = record.properties as Json;
    record.required = (record.required as string[]).filter(
      (name) => name !== "cloudType" || name in props,
    );
    if ((record.required as string[]).length === 0) delete record.required;
  }
  for (const value of Object.values(record)) relaxUndefinedRequired(value);
}

const definitions = structuredClone(openapi.definitions);
relaxUndefinedRequired(definitions);

// ajv-draft-04 is CommonJS: under NodeNext typing the class is `.default`, at run time either
type AjvClass = typeof AjvModule.default;
const Ajv: AjvClass =
  (AjvModule as unknown as { default?: AjvClass }).default ?? (AjvModule as unknown as AjvClass);
const ajv = new Ajv({ strict: false, allErrors: true });
for (const format of ["int32", "int64", "int8", "float64", "password"]) ajv.addFormat(format, true);
ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addSchema({ id: "palette", definitions });

const cache = new Map<string, ValidateFunction>();

export function validatorFor(definition: string): ValidateFunction {
  let validate = cache.get(definition);
  if (!validate) {
    if (!(definition in definitions)) throw new Error(`no definition ${definition}`);
    const compiled = ajv.getSchema(`palette#/definitions/${definition}`);
    if (!compiled) throw new Error(`cannot compile ${definition}`);
    validate = compiled;
    cache.set(definition, validate);
  }
  return validate;
}

/** Errors of `body` against a definition, as readable lines; empty when valid. */
export function schemaErrors(definition: string, body: unknown): string[] {
  const validate = validatorFor(definition);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (error) =>
      `${definition}${error.instancePath} ${error.message ?? ""} ${JSON.stringify(error.params)}`,
  );
}

function refName(schema: unknown): string | undefined {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  return ref?.replace("#/definitions/", "");
}

/** The definition of the success response of an operation, e.g. ("get", "/v1/spectroclusters/{uid}"). */
export function responseDefinition(method: string, template: string): string {
  const operation = openapi.paths[template]?.[method];
  if (!operation) throw new Error(`no operation ${method} ${template} in the subset`);
  const responses = operation.responses as Record<string, { schema?: unknown }>;
  const success = responses["200"] ?? responses["201"];
  const name = refName(success?.schema);
  if (!name) throw new Error(`${method} ${template} has no response definition`);
  return name;
}

/** The definition of the body parameter of an operation. */
export function requestDefinition(method: string, template: string): string {
  const operation = openapi.paths[template]?.[method];
  if (!operation) throw new Error(`no operation ${method} ${template} in the subset`);
  const parameters = operation.parameters as { in: string; schema?: unknown }[];
  const name = refName(parameters.find((parameter) => parameter.in === "body")?.schema);
  if (!name) throw new Error(`${method} ${template} has no body definition`);
  return name;
}

/** `/v1/spectroclusters/aws` → the operation's path template, preferring literal segments. */
export function templateOf(method: string, path: string): string {
  const pathname = path.split("?")[0]!;
  const candidates = Object.keys(openapi.paths).filter((template) => {
    const operations = openapi.paths[template]!;
    if (!(method.toLowerCase() in operations)) return false;
    const pattern = template.replace(/\{[^}]+\}/g, "[^/]+");
    return new RegExp(`^${pattern}$`).test(pathname);
  });
  candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const template = candidates[0];
  if (!template) throw new Error(`no operation for ${method} ${pathname} in the spec subset`);
  return template;
}

export function loadExample(file: string): unknown {
  return readFixtureJson("palette-api", "examples", file);
}
