/**
 * Slack mrkdwn escaping. Slack only requires `&`, `<` and `>` to be escaped; doing exactly that
 * keeps `<!channel>`, `<@U123>` and `<https://evil|click>` in names from pinging or linking.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Inline code: escaped, and backticks swapped for a look-alike so a name cannot close the span
 * and smuggle formatting after it.
 */
export function code(text: string): string {
  const inner = escapeMrkdwn(text.replace(/`/g, "ˋ")).replace(/\s+/g, " ");
  return inner.length === 0 ? "` `" : `\`${inner}\``;
}

/** Bold, escaped; `*` inside would end the bold early, so it is swapped for a look-alike. */
export function bold(text: string): string {
  const inner = escapeMrkdwn(text.replace(/\*/g, "∗")).replace(/\s+/g, " ").trim();
  return inner.length === 0 ? "" : `*${inner}*`;
}

/** A link whose label is escaped; `|` and `>` in the label would break the link syntax. */
export function link(url: string, label: string): string {
  return `<${url.replace(/[<>|\s]/g, encodeURIComponent)}|${escapeMrkdwn(label.replace(/\|/g, "¦"))}>`;
}

/** A Slack user ID becomes a mention; anything else is shown escaped, never pinged. */
export function mention(userId: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/**
 * A time Slack shows in each reader's own time zone (`<!date^…>`); `fallback` (UTC) is what
 * clients that cannot format it, the console and notifications show.
 */
export function slackDate(ms: number, format: "time" | "dateTime"): string {
  const seconds = Math.floor(ms / 1000);
  const iso = new Date(seconds * 1000).toISOString();
  const fallback =
    format === "time" ? `${iso.slice(11, 16)} UTC` : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  const token = format === "time" ? "{time}" : "{date_short_pretty} {time}";
  return `<!date^${seconds}^${token}|${fallback}>`;
}
