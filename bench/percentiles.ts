/** p50, p99 and max of a run's samples, in whole ms, and how many there were. */
export function percentiles(samples: number[], decimals = 0) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  const round = (ms: number) => Math.round(ms * 10 ** decimals) / 10 ** decimals;
  return {
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1) ?? 0),
    count: sorted.length,
  };
}

/** the mean of a run's figures, to one decimal (0 for none) */
export const mean = (values: number[]): number =>
  Math.round((values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)) * 10) / 10;
