import type { webApi } from "@slack/bolt";

/** Called once per Slack Web API call: the method (`chat.postMessage`) and how it went. */
export type SlackCallObserver = (method: string, outcome: string) => void;

type Fetch = NonNullable<webApi.WebClientOptions["fetch"]>;

/**
 * A `fetch` for WebClient that reports every Web API call by method and outcome (`ok`, Slack's
 * error code such as `channel_not_found`, `rate_limited`, `http_500`, `network`). Requests to
 * other URLs (a file's upload_url) count as `files.upload` so no URL becomes a label.
 */
export function countingFetch(
  apiUrl: string,
  observe: SlackCallObserver,
  base: Fetch = globalThis.fetch as unknown as Fetch,
): Fetch {
  return async (url, init) => {
    const text = String(url);
    const method = text.startsWith(apiUrl)
      ? text.slice(apiUrl.length).split(/[?#]/)[0] || "unknown"
      : "files.upload";
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await base(url, init);
    } catch (error) {
      observe(method, "network");
      throw error;
    }
    observe(method, await outcomeOf(method, response));
    return response;
  };
}

async function outcomeOf(method: string, response: Awaited<ReturnType<Fetch>>): Promise<string> {
  if (response.status === 429) return "rate_limited";
  if (!response.ok) return `http_${response.status}`;
  if (method === "files.upload") return "ok";
  // the body is read from a copy, so WebClient still reads the original
  const copy = (response as unknown as { clone?: () => { json(): Promise<unknown> } }).clone?.();
  if (!copy) return "ok";
  try {
    const body = (await copy.json()) as { ok?: boolean; error?: string };
    return body.ok ? "ok" : (body.error ?? "error");
  } catch {
    return "unreadable";
  }
}
