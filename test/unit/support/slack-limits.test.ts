import { describe, expect, it } from "vitest";
import {
  blockTextLength,
  checkMessage,
  checkView,
  MESSAGE_BLOCK_TEXT_MAX,
} from "../../support/slack-limits.ts";
import { RateTiers } from "../../support/slack-rate-tiers.ts";

/** The fake Slack's limits, one case each at the limit (taken) and one past it (refused). */

const x = (n: number) => "x".repeat(n);
const plain = (text: string) => ({ type: "plain_text", text });
const mrkdwn = (text: string) => ({ type: "mrkdwn", text });
const section = (text: string) => ({ type: "section", text: mrkdwn(text) });
const button = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "button",
  text: plain(text),
  action_id: `b${Math.random()}`,
  ...extra,
});
const option = (text: string, value = "v") => ({ text: plain(text), value });
const options = (n: number) => Array.from({ length: n }, (_, i) => option(`o${i}`, `v${i}`));
const modal = (extra: Record<string, unknown> = {}) => ({
  type: "modal",
  title: plain("Scale cluster"),
  blocks: [section("hello")],
  ...extra,
});
const message = (blocks: unknown[]) => checkMessage({ text: "fallback", blocks });
const errorOf = (blocks: unknown[]) => message(blocks)?.error;

describe("views (views.open/update/push/publish answer invalid_arguments)", () => {
  it.each([
    ["title", { title: plain(x(24)) }, { title: plain(x(25)) }],
    ["submit", { submit: plain(x(24)) }, { submit: plain(x(25)) }],
    ["close", { close: plain(x(24)) }, { close: plain(x(25)) }],
    ["private_metadata", { private_metadata: x(3000) }, { private_metadata: x(3001) }],
    ["callback_id", { callback_id: x(255) }, { callback_id: x(256) }],
    [
      "blocks",
      { blocks: Array.from({ length: 100 }, () => section("a")) },
      { blocks: Array.from({ length: 101 }, () => section("a")) },
    ],
  ])("%s", (_name, ok, refused) => {
    expect(checkView(modal(ok))).toBeUndefined();
    const refusal = checkView(modal(refused));
    expect(refusal?.error).toBe("invalid_arguments");
    expect(refusal?.messages[0]).toMatch(/^\[ERROR\] .* \[json-pointer:\/view\//);
  });

  it("says the title's limit the way Slack does", () => {
    expect(checkView(modal({ title: plain("Renew certificates cluster") }))?.messages).toEqual([
      "[ERROR] must be less than 25 characters [json-pointer:/view/title/text]",
    ]);
  });

  it("wants a plain_text title and a submit when there is an input", () => {
    expect(checkView(modal({ title: mrkdwn("Hi") }))).toBeDefined();
    const input = {
      type: "input",
      label: plain("Name"),
      element: { type: "plain_text_input", action_id: "n" },
    };
    expect(checkView(modal({ blocks: [input] }))).toBeDefined();
    expect(checkView(modal({ blocks: [input], submit: plain("Go") }))).toBeUndefined();
  });

  it("takes a serialized view as a form post sends it", () => {
    expect(checkView(JSON.stringify(modal()))).toBeUndefined();
    expect(checkView(JSON.stringify(modal({ title: plain(x(25)) })))).toBeDefined();
  });

  it("checks a Home tab's blocks without a title", () => {
    expect(checkView({ type: "home", blocks: [section("a")] })).toBeUndefined();
    expect(checkView({ type: "home", blocks: [section(x(3001))] })).toBeDefined();
  });
});

describe("message blocks (chat.* answer invalid_blocks)", () => {
  it.each([
    ["section text", [section(x(3000))], [section(x(3001))]],
    [
      "section fields count",
      [{ type: "section", fields: Array.from({ length: 10 }, () => mrkdwn("a")) }],
      [{ type: "section", fields: Array.from({ length: 11 }, () => mrkdwn("a")) }],
    ],
    [
      "section field length",
      [{ type: "section", fields: [mrkdwn(x(2000))] }],
      [{ type: "section", fields: [mrkdwn(x(2001))] }],
    ],
    ["empty section text", [section("a")], [section("")]],
    [
      "header",
      [{ type: "header", text: plain(x(150)) }],
      [{ type: "header", text: plain(x(151)) }],
    ],
    [
      "mrkdwn header",
      [{ type: "header", text: plain("a") }],
      [{ type: "header", text: mrkdwn("a") }],
    ],
    [
      "context elements",
      [{ type: "context", elements: Array.from({ length: 10 }, () => mrkdwn("a")) }],
      [{ type: "context", elements: Array.from({ length: 11 }, () => mrkdwn("a")) }],
    ],
    [
      "actions elements",
      [{ type: "actions", elements: Array.from({ length: 25 }, () => button("a")) }],
      [{ type: "actions", elements: Array.from({ length: 26 }, () => button("a")) }],
    ],
    [
      "button text",
      [{ type: "actions", elements: [button(x(75))] }],
      [{ type: "actions", elements: [button(x(76))] }],
    ],
    [
      "button value",
      [{ type: "actions", elements: [button("a", { value: x(2000) })] }],
      [{ type: "actions", elements: [button("a", { value: x(2001) })] }],
    ],
    [
      "button url",
      [{ type: "actions", elements: [button("a", { url: x(3000) })] }],
      [{ type: "actions", elements: [button("a", { url: x(3001) })] }],
    ],
    [
      "action_id length",
      [{ type: "actions", elements: [button("a", { action_id: x(255) })] }],
      [{ type: "actions", elements: [button("a", { action_id: x(256) })] }],
    ],
    [
      "action_id unique in its block",
      [
        { type: "actions", elements: [button("a", { action_id: "same" })] },
        { type: "actions", elements: [button("b", { action_id: "same" })] },
      ],
      [
        {
          type: "actions",
          elements: [button("a", { action_id: "same" }), button("b", { action_id: "same" })],
        },
      ],
    ],
    [
      "block_id length",
      [{ ...section("a"), block_id: x(255) }],
      [{ ...section("a"), block_id: x(256) }],
    ],
    [
      "block_id unique in the message",
      [
        { ...section("a"), block_id: "one" },
        { ...section("b"), block_id: "two" },
      ],
      [
        { ...section("a"), block_id: "one" },
        { ...section("b"), block_id: "one" },
      ],
    ],
    [
      "static_select options",
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: options(100) }],
        },
      ],
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: options(101) }],
        },
      ],
    ],
    [
      "option text",
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: [option(x(75))] }],
        },
      ],
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: [option(x(76))] }],
        },
      ],
    ],
    [
      "option value",
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: [option("a", x(150))] }],
        },
      ],
      [
        {
          type: "actions",
          elements: [{ type: "static_select", action_id: "s", options: [option("a", x(151))] }],
        },
      ],
    ],
    [
      "overflow at most 5",
      [{ ...section("a"), accessory: { type: "overflow", action_id: "o", options: options(5) } }],
      [{ ...section("a"), accessory: { type: "overflow", action_id: "o", options: options(6) } }],
    ],
    [
      "overflow at least 2",
      [{ ...section("a"), accessory: { type: "overflow", action_id: "o", options: options(2) } }],
      [{ ...section("a"), accessory: { type: "overflow", action_id: "o", options: options(1) } }],
    ],
    [
      "placeholder",
      [
        {
          type: "actions",
          elements: [
            {
              type: "static_select",
              action_id: "s",
              placeholder: plain(x(150)),
              options: options(1),
            },
          ],
        },
      ],
      [
        {
          type: "actions",
          elements: [
            {
              type: "static_select",
              action_id: "s",
              placeholder: plain(x(151)),
              options: options(1),
            },
          ],
        },
      ],
    ],
    [
      "confirm dialog",
      [
        {
          type: "actions",
          elements: [
            button("a", {
              confirm: {
                title: plain(x(100)),
                text: plain(x(300)),
                confirm: plain(x(30)),
                deny: plain(x(30)),
              },
            }),
          ],
        },
      ],
      [
        {
          type: "actions",
          elements: [
            button("a", {
              confirm: {
                title: plain(x(100)),
                text: plain(x(301)),
                confirm: plain(x(30)),
                deny: plain(x(30)),
              },
            }),
          ],
        },
      ],
    ],
    [
      "50 blocks",
      Array.from({ length: 50 }, () => ({ type: "divider" })),
      Array.from({ length: 51 }, () => ({ type: "divider" })),
    ],
    ["unknown block type", [{ type: "divider" }], [{ type: "sectoin", text: mrkdwn("a") }]],
  ])("%s", (_name, ok, refused) => {
    expect(message(ok)).toBeUndefined();
    const refusal = message(refused);
    expect(refusal?.error).toBe("invalid_blocks");
    expect(refusal?.messages[0]).toMatch(/^\[ERROR\] .* \[json-pointer:\/blocks/);
  });

  it("checks an input's label and its text input's lengths", () => {
    const input = (label: string, element: Record<string, unknown>) => ({
      type: "input",
      label: plain(label),
      element: { type: "plain_text_input", action_id: "i", ...element },
    });
    const view = (block: unknown) => checkView(modal({ blocks: [block], submit: plain("Go") }));
    expect(view(input(x(2000), { max_length: 3000, initial_value: x(3000) }))).toBeUndefined();
    expect(view(input(x(2001), {}))).toBeDefined();
    expect(view(input("a", { max_length: 3001 }))).toBeDefined();
    expect(view(input("a", { max_length: 10, initial_value: x(11) }))).toBeDefined();
    expect(view(input("a", { min_length: 5, max_length: 4 }))).toBeDefined();
  });

  it("refuses a message whose blocks carry more text than Slack was seen to take", () => {
    const under = Array.from({ length: 4 }, () => section(x(MESSAGE_BLOCK_TEXT_MAX / 4)));
    expect(blockTextLength(under)).toBe(MESSAGE_BLOCK_TEXT_MAX);
    expect(errorOf(under)).toBeUndefined();
    const over = [...under, section("y")];
    expect(errorOf(over)).toBe("msg_blocks_too_long");
  });

  it("refuses message text over 40,000 characters and a message with nothing in it", () => {
    expect(checkMessage({ text: x(40_000) })).toBeUndefined();
    expect(checkMessage({ text: x(40_001) })?.error).toBe("msg_too_long");
    expect(checkMessage({ text: "" })?.error).toBe("no_text");
  });

  it("reads blocks as a form post sends them (a JSON string)", () => {
    expect(checkMessage({ text: "t", blocks: JSON.stringify([section(x(3001))]) })?.error).toBe(
      "invalid_blocks",
    );
  });
});

describe("rate tiers", () => {
  it("lets a short burst into a channel, then about one a second, and says when to retry", () => {
    let now = 0;
    const tiers = new RateTiers(() => now);
    const post = (channel: string) => tiers.take("chat.postMessage", { channel });
    for (let i = 0; i < 4; i++) expect(post("C1").allowed).toBe(true);
    expect(post("C1")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(post("C2").allowed).toBe(true);
    now += 1_000;
    expect(post("C1").allowed).toBe(true);
    expect(post("C1").allowed).toBe(false);
  });

  it("meters each method by its tier per minute", () => {
    let now = 0;
    const tiers = new RateTiers(() => now);
    for (let i = 0; i < 50; i++) expect(tiers.take("chat.update", {}).allowed).toBe(true);
    const refused = tiers.take("chat.update", {});
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(2); // 50 a minute: one every 1.2 s
    for (let i = 0; i < 20; i++) expect(tiers.take("usergroups.users.list", {}).allowed).toBe(true);
    expect(tiers.take("usergroups.users.list", {}).allowed).toBe(false);
    now += 3_000;
    expect(tiers.take("usergroups.users.list", {}).allowed).toBe(true);
    expect(tiers.take("response", {}).allowed).toBe(true);
  });
});
