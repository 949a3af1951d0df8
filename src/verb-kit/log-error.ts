/** What a log line may say about an error: its kind and where, never a body or a header. */
export function errorSummary(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const fields: Record<string, unknown> = { name: error.name, message: error.message };
    for (const key of ["kind", "status", "code", "ref", "endpoint", "field"] as const) {
      const value = (error as unknown as Record<string, unknown>)[key];
      if (value !== undefined) fields[key] = value;
    }
    return fields;
  }
  return { value: String(error) };
}
