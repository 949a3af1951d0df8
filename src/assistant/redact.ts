import type { AssistantConfig } from "../config.ts";
import type { TimelineEntry, Who } from "../model/why.ts";
import type { Reply } from "../verb-kit/types.ts";

/**
 * What is taken out of a read before the model sees it (issue 36 item 2). E-mail addresses never
 * reach the model, nor so an answer, unless WHY_SHOW_EMAIL=true says they may be shown (the rule
 * of the channel cards); ASSISTANT_REDACT=emails takes them out even then. ASSISTANT_REDACT=names
 * takes the people out of `why`: each actor becomes "a Palette user", for a team whose model is
 * outside its network. Pure: a reply or a text in, the same with those taken out.
 */

export interface Redaction {
  emails: boolean;
  names: boolean;
}

export function redactionOf(config: Pick<AssistantConfig, "redact" | "showEmail">): Redaction {
  const redact = config.redact ?? [];
  return {
    emails: config.showEmail !== true || redact.includes("emails"),
    names: redact.includes("names"),
  };
}

/** an address as RFC 5322 mostly writes one: enough to find them in Palette's texts */
const EMAIL = /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+/g;
export const EMAIL_HIDDEN = "[e-mail hidden]";

/**
 * Secrets that turn up in Palette's texts (an event or audit message with a pasted token, a
 * kubeconfig): always taken out, whatever the settings, since a model is a third party and its
 * answer may be shared. Slack and bearer tokens, kubeconfig key and certificate data, PEM blocks,
 * and long unbroken hex (40+, so a 24-hex Palette UID stays) or base64 (40+, with a digit and both
 * cases, so a cluster name with dashes stays) strings.
 */
export const SECRET_HIDDEN = "[secret hidden]";
const SECRETS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /-----BEGIN [A-Z ]*(PRIVATE KEY|CERTIFICATE)-----[\s\S]*?(-----END [A-Z ]*-----|$)/g,
    SECRET_HIDDEN,
  ],
  // the label stays, so the model can still say a kubeconfig or a password was in the message
  [
    /\b(client-key-data|client-certificate-data|certificate-authority-data|token|password|secret)(\s*[:=]\s*)\S+/gi,
    `$1$2${SECRET_HIDDEN}`,
  ],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, SECRET_HIDDEN],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, SECRET_HIDDEN],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, SECRET_HIDDEN],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, SECRET_HIDDEN],
  [/\b[0-9a-fA-F]{40,}\b/g, SECRET_HIDDEN],
  [
    /(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*\d)(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])[A-Za-z0-9+/]{40,}={0,2}/g,
    SECRET_HIDDEN,
  ],
];

/** The text with its secrets and (unless shown) its e-mail addresses taken out. */
export function redactText(text: string, redaction: Redaction): string {
  let out = text;
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement);
  return redaction.emails ? out.replace(EMAIL, EMAIL_HIDDEN) : out;
}

const PERSON: Who = { kind: "palette", name: "a Palette user" };

function withoutPerson(entry: TimelineEntry): TimelineEntry {
  const who = entry.who && !(entry.who.kind === "palette" && entry.who.name === "Palette");
  const { approver: _approver, ...rest } = entry;
  return { ...rest, ...(who ? { who: PERSON } : entry.who ? { who: entry.who } : {}) };
}

/** The reply with its people taken out (ASSISTANT_REDACT=names); other replies as they were. */
export function redactReply(reply: Reply, redaction: Redaction): Reply {
  if (!redaction.names || reply.kind !== "message" || reply.view.screen !== "why") return reply;
  const data = reply.view.data;
  const cause = data.cause;
  return {
    ...reply,
    view: {
      screen: "why",
      data: {
        ...data,
        entries: data.entries.map(withoutPerson),
        cause:
          cause.kind === "write"
            ? {
                ...cause,
                entry: withoutPerson(cause.entry),
                ...(cause.trouble ? { trouble: withoutPerson(cause.trouble) } : {}),
              }
            : cause.kind === "event"
              ? { ...cause, entry: withoutPerson(cause.entry) }
              : cause,
      },
    },
  };
}
