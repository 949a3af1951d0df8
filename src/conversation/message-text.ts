/**
 * What a person typed to the bot in a message (a mention, a DM), as `/palette` text: Slack writes
 * a message's text with its own markup (`<@U…>` for mentions, `<https://…|label>` for links,
 * `&amp;` `&lt;` `&gt;` for the three characters it reserves), which the command grammar must not see.
 */

/** `<@U123>` or `<@U123|name>`: a user mention in Slack's markup */
const USER_MENTION = /<@([A-Z0-9]+)(?:\|[^>]*)?>/g;
/** `<https://…>` or `<https://…|label>`: a link; the command wants the URL */
const LINK = /<((?:https?|mailto):[^>|]+)(?:\|[^>]*)?>/g;

/**
 * The command in a message: the bot's own mentions taken out (anywhere: "hey @Palette, nodes"),
 * a leading `/palette` or `palette` dropped (people type it in DMs out of habit), links unwrapped
 * and Slack's escapes undone. Other people's mentions stay as written (a mute reason may name one).
 */
export function commandFromMessage(text: string, botUserId: string | undefined): string {
  const withoutBot = text.replace(USER_MENTION, (whole, id: string) =>
    botUserId === undefined || id === botUserId ? " " : whole,
  );
  const unwrapped = withoutBot
    .replace(LINK, (_whole, url: string) => url)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
  return unwrapped
    .trim()
    .replace(/^[,:;]\s*/, "")
    .replace(/^\/?palette\b\s*/i, "")
    .trim();
}
