import type { createRng } from "../../src/simulator/prng.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import type { Field, MadeChange } from "./score.ts";

type Rng = ReturnType<typeof createRng>;

/** A step of a run's plan: what the driver does, and when (epoch ms). */
export interface Timed {
  at: number;
  run: () => void | Promise<void>;
}

/** `count` moments in [from, to), one per equal slot, each early in its slot, in order. */
export function spread(rng: Rng, count: number, from: number, to: number): number[] {
  const slot = (to - from) / Math.max(1, count);
  return Array.from({ length: count }, (_, i) => from + slot * i + rng.next() * slot * 0.5);
}

/**
 * The changes a run makes in Palette: `changes` of them on clusters picked at random, each going
 * away (Upgrading, or UnHealthy for every other one) in the first half of `periodMs` and back a
 * half period later. Each step, when it runs, is recorded in `made` for the score. Returns the
 * plan and the clusters it changes.
 */
export function awayAndBack(input: {
  sim: RunningSimulator;
  live: readonly FleetCluster[];
  changes: number;
  t0: number;
  periodMs: number;
  rng: Rng;
  /** the health reason the simulator shows */
  reason: string;
  made: MadeChange[];
}): { plan: Timed[]; chosen: FleetCluster[] } {
  const { sim, rng, made } = input;
  const pairs = Math.ceil(input.changes / 2);
  const chosen = [...input.live].sort(() => rng.next() - 0.5).slice(0, pairs);
  if (chosen.length < pairs) {
    throw new Error(`${pairs} clusters needed, the fleet has ${input.live.length}`);
  }
  const half = input.periodMs / 2;
  const firstAt = spread(rng, pairs, input.t0, input.t0 + half);
  const plan = chosen.flatMap((cluster, i) => {
    const field: Field = i % 2 === 0 ? "state" : "health";
    const away = field === "state" ? "Upgrading" : "UnHealthy";
    const back = field === "state" ? "Running" : "Healthy";
    const steps = input.changes - i * 2 >= 2 ? [away, back] : [away];
    return steps.map((to, step) => ({
      at: firstAt[i]! + step * half,
      run: () => {
        if (field === "state") sim.control.setState(cluster.uid, to);
        else sim.control.setHealth(cluster.uid, to, input.reason);
        made.push({
          at: Date.now(),
          cluster: cluster.name,
          project: cluster.projectUid,
          field,
          to,
        });
      },
    }));
  });
  return { plan, chosen };
}
