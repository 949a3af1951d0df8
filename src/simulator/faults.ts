import { documentedLimit } from "../palette/rate-limits.ts";
import type { Fault } from "./types.ts";

/**
 * Injected faults (control.addFault) and the documented per-prefix rate limits. Faults are
 * matched in the order they were added; latency faults add up, the first other fault wins.
 */

export interface FaultDecision {
  latencyMs: number;
  fault?: Fault;
}

export class FaultBook {
  private faults: { fault: Fault; left: number }[] = [];

  add(fault: Fault): void {
    this.faults.push({ fault: { ...fault }, left: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return this.faults.map(({ fault }) => fault);
  }

  decide(method: string, path: string): FaultDecision {
    let latencyMs = 0;
    let chosen: Fault | undefined;
    for (const entry of this.faults) {
      if (entry.left <= 0) continue;
      const { fault } = entry;
      if (!path.startsWith(fault.pathPrefix)) continue;
      if (fault.method && fault.method.toUpperCase() !== method.toUpperCase()) continue;
      if (fault.kind === "latency") {
        latencyMs += fault.latencyMs ?? 0;
        entry.left -= 1;
      } else if (!chosen) {
        chosen = fault;
        entry.left -= 1;
      }
    }
    this.faults = this.faults.filter((entry) => entry.left > 0);
    return chosen ? { latencyMs, fault: chosen } : { latencyMs };
  }
}

/**
 * Token buckets per (source IP, prefix), capacity = one second's worth. Uses its own time source
 * (real monotonic time by default), because clients pace in real time even when the lifecycle
 * clock is a ManualClock.
 */
export class RateLimitEnforcer {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly nowMs: () => number = () => performance.now()) {}

  /** undefined when allowed, else seconds to wait (Retry-After, at least 1) */
  take(sourceIp: string, path: string): number | undefined {
    const limit = documentedLimit(path);
    if (!limit) return undefined;
    const key = `${sourceIp} ${limit.prefix}`;
    const now = this.nowMs();
    const bucket = this.buckets.get(key) ?? { tokens: limit.perSecond, at: now };
    bucket.tokens = Math.min(
      limit.perSecond,
      bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond,
    );
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
  }
}
