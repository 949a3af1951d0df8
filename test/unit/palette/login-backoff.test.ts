import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { TokenKeeper } from "../../../src/palette/auth.ts";
import { describeForUser, PaletteError } from "../../../src/palette/errors.ts";

const rejected = () =>
  new PaletteError("unauthorized", 401, "AuthFailed", "bad credentials", "ref-1", "POST /v1/auth");

/** A service account Palette refuses until `accept` is set; counts login attempts. */
function account() {
  const state = { accept: false, logins: 0 };
  const source = {
    async login() {
      state.logins++;
      if (!state.accept) throw rejected();
      return `token-${state.logins}`;
    },
    async refresh() {
      throw rejected();
    },
  };
  return { state, source };
}

/** A keeper for a refusing account, its backoff measured on a hand-moved clock. */
function keeperFor(loginBackoff: { baseMs: number; maxMs: number }) {
  const clock = new ManualClock(0);
  const { state, source } = account();
  const keeper = new TokenKeeper({ source, logger: silentLogger, clock, loginBackoff });
  return { clock, state, keeper };
}

describe("login backoff for a rejected credential", () => {
  it("does not log in again on every call while the credential is refused", async () => {
    const { clock, state, keeper } = keeperFor({ baseMs: 5_000, maxMs: 60_000 });
    await expect(keeper.token()).rejects.toThrow("bad credentials");
    // ten commands and polls inside the backoff: the refusal at once, no login attempt
    for (let i = 0; i < 10; i++) {
      const error = await keeper.token().catch((e: unknown) => e);
      expect(describeForUser(error)).toMatch(/Palette rejected the bot's credentials/);
    }
    expect(state.logins).toBe(1);

    clock.advance(5_000);
    await expect(keeper.token()).rejects.toThrow();
    expect(state.logins).toBe(2);
    // the second wait is twice the first
    clock.advance(5_000);
    await expect(keeper.token()).rejects.toThrow();
    expect(state.logins).toBe(2);
    clock.advance(5_000);
    state.accept = true;
    await expect(keeper.token()).resolves.toBe("token-3");
  });

  it("caps the wait, and a success starts over", async () => {
    const { clock, state, keeper } = keeperFor({ baseMs: 1_000, maxMs: 4_000 });
    for (let i = 0; i < 6; i++) {
      await keeper.token().catch(() => undefined);
      clock.advance(4_000);
    }
    // 1 s, 2 s, 4 s, then capped at 4 s: every 4 s step is a new attempt
    expect(state.logins).toBe(6);
    state.accept = true;
    await expect(keeper.token()).resolves.toBe("token-7");
  });
});
