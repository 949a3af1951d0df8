import type { PaletteApi, PaletteIdentityApi } from "./api.ts";
import { clusterReads } from "./client-clusters.ts";
import { createClientCore, type PaletteClientOptions } from "./client-core.ts";
import { dayTwoCalls } from "./client-day2.ts";
import { edgeCalls } from "./client-edge.ts";
import { historyCalls } from "./client-history.ts";
import { identityCalls } from "./client-identity.ts";
import { launchCalls } from "./client-launch.ts";
import { logCalls } from "./client-logs.ts";
import { machinePoolCalls } from "./client-machine-pools.ts";
import { radarCalls } from "./client-radar.ts";
import type { PaletteEdgeApi } from "./edge-api.ts";
import type { PaletteClientStats } from "./stats.ts";

export type { PaletteClientOptions } from "./client-core.ts";
export type { PaletteClientEvent, PaletteClientStats } from "./stats.ts";

/**
 * The Palette client: PaletteApi and PaletteIdentityApi over HTTP. The public entry of
 * src/palette/ for the app and the tests. It only assembles: client-core.ts talks to Palette
 * (transport, credential, pacing, retries, errors, paging), and each client-*.ts module sends the
 * requests of one group of Palette resources through that core.
 */
export interface PaletteClient extends PaletteApi, PaletteIdentityApi, PaletteEdgeApi {
  close(): Promise<void>;
  stats(): PaletteClientStats;
}

export function createPaletteClient(options: PaletteClientOptions): PaletteClient {
  const core = createClientCore(options);
  return {
    ...clusterReads(core),
    ...machinePoolCalls(core),
    ...launchCalls(core),
    ...dayTwoCalls(core),
    ...logCalls(core),
    ...historyCalls(core),
    ...radarCalls(core),
    ...identityCalls(core),
    ...edgeCalls(core),
    close: () => core.close(),
    stats: () => core.stats(),
  };
}
