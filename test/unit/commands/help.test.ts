import { describe, expect, it } from "vitest";
import { HELP_GROUPS, helpGroups } from "../../../src/commands/help.ts";
import { renderBlocks } from "../../../src/console/render.ts";
import { dispatch, VERBS } from "../../../src/registry/dispatch.ts";
import type { VerbSpec } from "../../../src/verb-kit/types.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";

/** rows a text takes on a terminal `columns` wide, long lines wrapped */
function rows(text: string, columns = 100): number {
  return text
    .split("\n")
    .reduce((sum, line) => sum + Math.max(1, Math.ceil([...line].length / columns)), 0);
}

async function help(text: string) {
  const reply = asMessage(await dispatch(text, await testContext()));
  expect(checkSlackLimits(reply.blocks)).toEqual([]);
  return { reply, text: blocksText(reply.blocks), screen: renderBlocks(reply.blocks) };
}

describe("help", () => {
  it("puts every registered verb in exactly one group, and names no verb that is gone", () => {
    const placed = HELP_GROUPS.flatMap((group) => Object.keys(group.verbs));
    expect([...placed].sort()).toEqual(VERBS.map((verb) => verb.name).sort());
    expect(new Set(placed).size).toBe(placed.length);
  });

  it("groups the verbs by what people do: ask, hear, act, you, one line each", async () => {
    const { screen, reply } = await help("help");
    expect(reply.visibility).toBe("ephemeral");
    const titles = ["Ask", "Hear", "Act", "You"].map((title) => screen.indexOf(`\n${title} `));
    for (const at of titles) expect(at).toBeGreaterThan(-1);
    expect([...titles].sort((a, b) => a - b)).toEqual(titles);
    for (const verb of VERBS) {
      const lines = screen
        .split("\n")
        .filter((line) => line.startsWith(`\`/palette ${verb.name}\` `));
      expect(lines, verb.name).toHaveLength(1);
    }
    // in its group: clusters is asked, subscribe heard, scale acted, login yours
    const at = (verb: string) => screen.indexOf(`\`/palette ${verb}\` `);
    expect(at("clusters")).toBeGreaterThan(titles[0]!);
    expect(at("clusters")).toBeLessThan(titles[1]!);
    expect(at("subscribe")).toBeGreaterThan(titles[1]!);
    expect(at("subscribe")).toBeLessThan(titles[2]!);
    expect(at("scale")).toBeGreaterThan(titles[2]!);
    expect(at("scale")).toBeLessThan(titles[3]!);
    expect(at("login")).toBeGreaterThan(titles[3]!);
  });

  it("fits a screen: at most 45 rows of a 100-column terminal, no examples", async () => {
    const { screen } = await help("");
    expect(rows(screen)).toBeLessThanOrEqual(45);
    for (const verb of VERBS) {
      for (const example of verb.examples) {
        if (example !== `/palette ${verb.name}`) expect(screen).not.toContain(example);
      }
    }
    expect(screen).toContain("/palette help <command>");
  });

  it("help <verb> gives that verb's usage and every example, and no other verb", async () => {
    const scale = VERBS.find((verb) => verb.name === "scale")!;
    const { text, reply, screen } = await help("help scale");
    expect(screen).toContain(`/palette ${scale.usage}`);
    for (const example of scale.examples) expect(text).toContain(example);
    expect(text).not.toContain("/palette clusters");
    expect(text).not.toContain("Ask");
    expect(reply.text).toContain("scale");
    const digest = VERBS.find((verb) => verb.name === "digest")!;
    const second = await help("HELP DIGEST");
    for (const example of digest.examples) expect(second.text).toContain(example);
  });

  it("an unknown verb after help says so and shows the overview", async () => {
    const { text, screen } = await help("help <!channel>");
    expect(text).toContain("No command `&lt;!channel&gt;`");
    expect(text).not.toContain("<!channel>");
    expect(screen).toContain("`/palette clusters` ");
  });

  it("lists a verb no group names under More, with its summary, rather than hide it", () => {
    const extra: VerbSpec = {
      name: "frobnicate",
      usage: "frobnicate",
      summary: "a verb added without a help line",
      examples: [],
      run: async () => {
        throw new Error("not run");
      },
    };
    const groups = helpGroups([...VERBS, extra]);
    expect(groups.map((group) => group.title)).toEqual(["Ask", "Hear", "Act", "You", "More"]);
    expect(groups.at(-1)!.lines).toEqual([
      { verb: "frobnicate", line: "a verb added without a help line" },
    ]);
  });
});
