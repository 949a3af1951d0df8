// Loaded into the bot's process by a benchmark (NODE_OPTIONS=--import): Node's own event-loop
// delay histogram (perf_hooks monitorEventLoopDelay), its max over each 100 ms window appended to
// LOOP_PROBE_FILE as "<epoch ms> <max ms>", so the bench reads the longest block during the
// window it cares about. Not part of the bot; the image never loads it.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.LOOP_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const timer = setInterval(() => {
    appendFileSync(file, `${Date.now()} ${(histogram.max / 1e6).toFixed(2)}\n`);
    histogram.reset();
  }, 100);
  timer.unref();
}
