import type { z } from "zod";
import { PaletteSchemaError } from "./errors.ts";

/** Validates a 2xx body; the first offending field becomes a PaletteSchemaError. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  endpoint: string,
): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  throw new PaletteSchemaError(endpoint, field, issue?.message ?? "invalid");
}

/** JSON text → value; a body that is not JSON is a schema problem at the root. */
export function parseJson(text: string, endpoint: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new PaletteSchemaError(endpoint, "(root)", "the body is not JSON");
  }
}
