import type { App, ReceiverEvent } from "@slack/bolt";

/**
 * Acks before answers. Every request costs an ack (fast, and Slack's 3 s clock runs on it) and an
 * answer (rendering, delivery: several times the ack's CPU). In a burst they compete for one event
 * loop, and acks end up queued behind answers. The gate hands out turns to answer work one at a
 * time, one per turn of the event loop, and only once no new request has arrived for `quietMs`:
 * a burst is acked first and answered right after it, and an ack never waits behind more than one
 * piece of answer work. A turn waits at most `maxWaitMs`, so steady traffic cannot starve answers.
 */
export interface AnswerGate {
  /** a Slack request arrived (called before Bolt processes it) */
  noteRequest(): void;
  /** resolves when answer work may run */
  turn(): Promise<void>;
}

export interface AnswerGateOptions {
  quietMs?: number;
  maxWaitMs?: number;
  now?: () => number;
}

export function createAnswerGate(options: AnswerGateOptions = {}): AnswerGate {
  const quietMs = options.quietMs ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  const waiting: Array<{ since: number; resolve: () => void }> = [];
  let pumping = false;

  const pump = () => {
    const head = waiting[0];
    if (!head) {
      pumping = false;
      return;
    }
    const at = now();
    const quietFor = at - lastRequestAt;
    if (quietFor >= quietMs || at - head.since >= maxWaitMs) {
      waiting.shift();
      head.resolve();
      // setImmediate: the next turn comes after the I/O of this loop turn, acks included
      setImmediate(pump);
      return;
    }
    setTimeout(pump, Math.max(1, Math.ceil(quietMs - quietFor)));
  };

  return {
    noteRequest() {
      lastRequestAt = now();
    },
    turn() {
      return new Promise<void>((resolve) => {
        waiting.push({ since: now(), resolve });
        if (!pumping) {
          pumping = true;
          setImmediate(pump);
        }
      });
    },
  };
}

/** Every receiver (HTTP and Socket Mode) hands Bolt its requests through `processEvent`. */
export function watchRequests(app: App, gate: AnswerGate): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event: ReceiverEvent) => {
    gate.noteRequest();
    return processEvent(event);
  };
}
