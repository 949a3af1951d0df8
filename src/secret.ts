import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A value that must never be printed. Logging, JSON-encoding, string-interpolating or
 * inspecting it yields "[redacted]"; only `reveal()` returns the real value, so every
 * place that really needs it is easy to grep for.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
