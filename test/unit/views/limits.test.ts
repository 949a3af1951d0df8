import type { KnownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { buttonRows, commandButton, header, section } from "../../../src/views/blocks.ts";
import {
  checkSlackLimits,
  clampList,
  clampText,
  LIMITS,
  packLines,
} from "../../../src/views/limits.ts";
import { bold, code, escapeMrkdwn, link } from "../../../src/views/mrkdwn.ts";

describe("escapeMrkdwn", () => {
  it("escapes exactly &, < and >", () => {
    expect(escapeMrkdwn("<!channel> & <@U1> *x*")).toBe("&lt;!channel&gt; &amp; &lt;@U1&gt; *x*");
  });

  it("keeps code and bold spans closed whatever the name", () => {
    expect(code("a`b<c>")).toBe("`aˋb&lt;c&gt;`");
    expect(bold("a*b")).toBe("*a∗b*");
    expect(link("https://x.test/a b", "l|<x>")).toBe("<https://x.test/a%20b|l¦&lt;x&gt;>");
  });
});

describe("clampText", () => {
  it("cuts with an ellipsis and never splits an entity or a surrogate pair", () => {
    expect(clampText("abcdef", 4)).toBe("abc…");
    expect(clampText("abc&amp;def", 6)).toBe("abc…");
    expect(clampText("ab😀cd", 4)).toBe("ab…");
    expect(clampText("short", 10)).toBe("short");
  });
});

describe("clampList and packLines", () => {
  it("says how many were left out", () => {
    expect(clampList([1, 2, 3, 4], 2)).toEqual({ shown: [1, 2], hidden: 2 });
    const chunks = packLines(
      Array.from({ length: 1000 }, (_, i) => `line ${i} ${"x".repeat(90)}`),
      3000,
      3,
    );
    expect(chunks).toHaveLength(3);
    expect(chunks.every((chunk) => chunk.length <= 3000)).toBe(true);
    expect(chunks[2]).toMatch(/…and \d+ more_$/);
  });
});

describe("checkSlackLimits", () => {
  it("accepts what the builders make from huge input", () => {
    const blocks: KnownBlock[] = [
      header("h".repeat(500)),
      section("s".repeat(10_000)),
      ...buttonRows(
        Array.from({ length: 40 }, (_, i) =>
          commandButton("b".repeat(100), `cluster ${i}`, `b${i}`),
        ),
      ),
    ];
    expect(checkSlackLimits(blocks)).toEqual([]);
  });

  it("finds every kind of violation", () => {
    const blocks = [
      { type: "header", text: { type: "plain_text", text: "h".repeat(151) } },
      { type: "section", text: { type: "mrkdwn", text: "<!channel>" } },
      {
        type: "section",
        fields: Array.from({ length: 11 }, () => ({ type: "mrkdwn", text: "f" })),
      },
      { type: "section", text: { type: "mrkdwn", text: "" } },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: "x" },
            action_id: "a",
            value: "v".repeat(2001),
          },
          { type: "button", text: { type: "plain_text", text: "y" }, action_id: "a", value: "v" },
        ],
      },
      ...Array.from({ length: 46 }, () => ({ type: "divider" })),
    ] as unknown as KnownBlock[];
    const problems = checkSlackLimits(blocks).join("\n");
    expect(problems).toMatch(/51 blocks > 50/);
    expect(problems).toMatch(/151 chars > 150/);
    expect(problems).toMatch(/unescaped mention/);
    expect(problems).toMatch(/11 fields/);
    expect(problems).toMatch(/empty text/);
    expect(problems).toMatch(/value 2001 chars/);
    expect(problems).toMatch(/duplicate action_id/);
  });

  it("accepts one user or channel by ID, never a mass mention or a malformed one", () => {
    expect(checkSlackLimits([section("by <@U0123ABC> in <#C0123ABC>")])).toEqual([]);
    for (const text of [
      "<!channel>",
      "<!here|here>",
      "<!subteam^S1>",
      "<@everyone>",
      "<#general>",
    ]) {
      expect(checkSlackLimits([section(`hi ${text}`)])[0], text).toMatch(/unescaped mention/);
    }
  });

  it("flags a stray < but accepts links", () => {
    expect(checkSlackLimits([section("run `/palette cluster <name>`")])[0]).toMatch(/unescaped </);
    expect(
      checkSlackLimits([section("see <https://x.test/a?b=1|the console> &lt;ok&gt;")]),
    ).toEqual([]);
  });

  it("drops a command button whose value would not fit", () => {
    expect(commandButton("x", "c".repeat(LIMITS.buttonValue + 1), "x")).toBeUndefined();
  });
});
