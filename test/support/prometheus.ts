/**
 * The value of one sample in a Prometheus text exposition, e.g. `name{a="b"}`; undefined when the
 * series is absent. The one reader every metrics test uses.
 */
export function sampleValue(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
