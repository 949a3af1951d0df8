import type { webApi } from "@slack/bolt";

type Fetch = NonNullable<webApi.WebClientOptions["fetch"]>;
type RetryOptions = NonNullable<webApi.WebClientOptions["retryConfig"]>;

/** set on a failure of a chat.postMessage request: WebClient must not send it again */
const NOT_RETRIED = Symbol("chat.postMessage failure, not retried");

/** the Web API methods whose request, sent again, can show a second message */
const POSTS = new Set(["chat.postMessage"]);

/**
 * A `fetch` for WebClient under which a chat.postMessage that got no trustworthy answer (no
 * answer in time, a lost connection, an HTTP status other than 200 and 429) fails marked, so
 * `notRetryingPosts` stops WebClient's own retries on it. Slack may have taken a post whose
 * answer never came, and `chat.postMessage` has no idempotency key: a retry of it is a second
 * message (issue 37 item 2). Reads and edits are left to retry as before: sent again they show
 * nothing twice.
 */
export function postsFailMarked(apiUrl: string, base: Fetch): Fetch {
  return async (url, init) => {
    const text = String(url);
    const method = text.startsWith(apiUrl) ? text.slice(apiUrl.length).split(/[?#]/)[0] : "";
    if (!method || !POSTS.has(method)) return base(url, init);
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await base(url, init);
    } catch (error) {
      throw marked(error instanceof Error ? error : new Error(String(error)));
    }
    if (response.status !== 200 && response.status !== 429) {
      // WebClient would retry this as an HTTP error it cannot tell from a refusal: Slack (or a
      // gateway in front of it) may have posted before answering it
      throw marked(new Error(`http_${response.status}`));
    }
    return response;
  };
}

/**
 * `retry` with WebClient's retries stopped for any failure `postsFailMarked` marked. WebClient
 * hands its retryConfig to p-retry whole, and p-retry ends the retries when `onFailedAttempt`
 * throws; WebClient's type leaves that option out, hence the widened type (a test holds it:
 * test/unit/slack/posts-not-retried.test.ts).
 */
export function notRetryingPosts(retry: RetryOptions): RetryOptions {
  const withHook: RetryOptions & { onFailedAttempt(error: Error): Promise<void> } = {
    ...retry,
    async onFailedAttempt(error: Error) {
      const original = (error as { original?: unknown }).original;
      if (original instanceof Error && NOT_RETRIED in original) throw error;
    },
  };
  return withHook;
}

function marked(error: Error): Error {
  Object.defineProperty(error, NOT_RETRIED, { value: true });
  return error;
}
