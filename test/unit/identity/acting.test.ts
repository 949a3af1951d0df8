import { describe, expect, it } from "vitest";
import { personalRefusalLines } from "../../../src/identity/acting.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { Secret } from "../../../src/secret.ts";
import type { IdentityLink } from "../../../src/store/identities.ts";
import type { IdentityDeps } from "../../../src/verb-kit/identity-deps.ts";

/** personalRefusalLines: Palette's refusal of a person's key, in their name. */

function identityWith(links: Map<string, IdentityLink>): IdentityDeps {
  const store = {
    remove: async (slackUserId: string) => links.delete(slackUserId),
  } as unknown as IdentityDeps["store"];
  return {
    mode: "linked",
    method: "key",
    store,
    paletteAs: () => {
      throw new Error("not used");
    },
    now: () => 0,
  };
}

const link = (method: "key" | "email"): IdentityLink => ({
  slackUserId: "U1",
  paletteUserUid: "u-1",
  paletteUserName: "Vera <Viewer>",
  method,
  linkedAt: "2026-11-26T00:00:00.000Z",
  apiKey: new Secret("simkey-0123456789abcdef"),
});

const refusedBy = (status: 401 | 403) =>
  new PaletteError(
    status === 401 ? "unauthorized" : "forbidden",
    status,
    undefined,
    "no",
    undefined,
    "PUT /v1/x",
  );

const BOT_BLAME = /bot's|grant its role|PALETTE_API_KEY/;

describe("personalRefusalLines", () => {
  it("a 403 names the person and the project, escaped in mrkdwn and plain in the line", async () => {
    const links = new Map([["U1", link("key")]]);
    const lines = await personalRefusalLines(
      refusedBy(403),
      link("key"),
      "scale",
      "p1",
      identityWith(links),
    );
    expect(lines?.mrkdwn).toContain(
      "Palette does not allow Vera &lt;Viewer&gt; to scale in project `p1`",
    );
    expect(lines?.plain).toBe("Palette does not allow Vera <Viewer> to scale in project p1.");
    expect(`${lines?.mrkdwn} ${lines?.plain} ${lines?.hint}`).not.toMatch(BOT_BLAME);
    expect(links.has("U1")).toBe(true);
  });

  it("a 401 on a linked key unlinks it and says so once; the second refusal finds no link", async () => {
    const links = new Map([["U1", link("key")]]);
    const first = await personalRefusalLines(
      refusedBy(401),
      link("key"),
      "scale",
      undefined,
      identityWith(links),
    );
    expect(links.has("U1")).toBe(false);
    expect(first?.mrkdwn).toContain("so I unlinked it");
    expect(first?.plain).toContain("/palette login");
    const second = await personalRefusalLines(
      refusedBy(401),
      link("key"),
      "scale",
      undefined,
      identityWith(links),
    );
    expect(second?.mrkdwn).toContain("not linked to a Palette user any more");
    expect(`${first?.plain} ${second?.plain}`).not.toMatch(BOT_BLAME);
  });

  it("a 401 on a key minted for the command (LINK_METHOD=email) unlinks nothing and does not say so", async () => {
    const links = new Map([["U1", link("key")]]);
    const lines = await personalRefusalLines(
      refusedBy(401),
      link("email"),
      "scale",
      undefined,
      identityWith(links),
    );
    expect(links.has("U1")).toBe(true);
    expect(lines?.mrkdwn).not.toContain("unlinked");
    expect(lines?.plain).toContain("Vera <Viewer>");
    expect(lines?.plain).not.toMatch(BOT_BLAME);
  });

  it("anything but Palette's 401 or 403 is not the person's refusal", async () => {
    const identity = identityWith(new Map());
    const server = new PaletteError("server", 500, undefined, "x", "ref", "PUT /v1/x");
    expect(await personalRefusalLines(server, link("key"), "scale", "p", identity)).toBeUndefined();
    expect(
      await personalRefusalLines(new Error("x"), link("key"), "scale", "p", identity),
    ).toBeUndefined();
  });
});
