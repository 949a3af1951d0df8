import { interactiveGated } from "../palette/priority.ts";

/**
 * One question's bounds on Palette (issue 36 item 7), held where every request passes: the
 * client's request gate, before each HTTP request of the question's reads goes out, pages and
 * retries included. Past the cap, or once the question's time limit has passed (its abort
 * signal), the gate throws and the request is never sent, so a read cannot walk a fleet's pages
 * or outlive the question.
 */
export class ReadBounds {
  /** the question's Palette HTTP requests so far */
  requests = 0;
  /** why a request was stopped, once one was */
  stopped: "cap" | "time" | undefined;

  constructor(
    private readonly cap: number,
    private readonly signal: AbortSignal,
  ) {}

  /** runs one read with every Palette request it makes counted and bounded */
  run<T>(work: () => Promise<T>): Promise<T> {
    return interactiveGated(work, async () => {
      if (this.signal.aborted) {
        this.stopped = "time";
        throw new Error("the question's time limit has passed; request not sent");
      }
      if (this.requests >= this.cap) {
        this.stopped = "cap";
        throw new Error("the question's Palette request cap is reached; request not sent");
      }
      this.requests += 1;
    });
  }

  get capReached(): boolean {
    return this.stopped === "cap";
  }
}
