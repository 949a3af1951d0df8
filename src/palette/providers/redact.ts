const SECRET_KEY = /key|secret|password|passwd|token|credential|certificate|private/i;

/**
 * A copy of a create body safe for the audit log: any property whose name looks like it could
 * carry a secret is dropped (SSH public keys included, to be safe).
 */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactBody);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEY.test(key)) continue;
      out[key] = redactBody(item);
    }
    return out;
  }
  return value;
}
