import type { Clock } from "../clock.ts";
import type { EdgeBook } from "./edge/book.ts";

/**
 * The contract of the Palette simulator (src/simulator/server.ts exports
 * `startSimulator(options): Promise<RunningSimulator>`). Tests, the demo and the benchmarks
 * start it in-process on 127.0.0.1 with an ephemeral port.
 */

export interface SimulatorCredentials {
  apiKey: string;
  email: string;
  org: string;
  password: string;
}

export interface SimulatorOptions {
  /** default 0 (ephemeral) */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** clusters in the seeded fleet, spread over the projects and all 11 providers; default 40 */
  clusters?: number;
  /** projects; default 3 */
  projects?: number;
  /** PRNG seed: the same seed gives the same fleet; default 1 */
  seed?: number;
  /** injectable clock that drives lifecycles and token expiry; default the system clock */
  clock?: Clock;
  /** token life; default 15 minutes */
  tokenTtlMs?: number;
  /** default { apiKey: "sim-api-key", email: "bot@example.com", org: "demo", password: "sim-password" } */
  credentials?: Partial<SimulatorCredentials>;
  /** enforce the documented per-prefix rate limits (answer 429 past them); default false */
  enforceRateLimits?: boolean;
  /**
   * how long a created cluster stays Pending and then Provisioning (defaults 5 s and 20 s), and
   * how long a certificate renewal takes (`renewMs`, default RENEW_MS; real Palette takes minutes)
   */
  lifecycle?: {
    pendingMs?: number;
    provisioningMs?: number;
    deletingMs?: number;
    renewMs?: number;
  };
  /** for the demo: every `animateEveryMs` a random cluster changes health or state; default off */
  animateEveryMs?: number;
  /** fraction (0..1) of seeded clusters that are not Running and Healthy; default about 0.125 */
  unhealthy?: number;
  /** state/health changes per minute of the simulator's clock, applied as it is read; default 0 */
  churnPerMinute?: number;
  /**
   * soft-deleted clusters seeded besides `clusters` (state Deleted, deletionTimestamp set; the
   * first has the name of a live cluster); default 3 for fleets of 10 or more, else none
   */
  softDeleted?: number;
  /**
   * edge hosts in all (issue 39): at least one per edge-native cluster and four ready ones per
   * project; more are added in use by the edge-native clusters, a few unpaired or unused. Default
   * only those.
   */
  edgeHosts?: number;
  /** share of edge hosts whose health drops and recovers on its own; default 0.02 */
  edgeFlapping?: number;
}

/**
 * `late`: the request is handled (a write is applied) and its answer held back `latencyMs`,
 * so a client whose time-out is shorter never hears that it happened.
 * `hold`: the request waits, before it is handled, until the test calls `control.release()` (a
 * slow Palette whose pace the test sets, however busy the machine); then it is handled as usual
 */
/** `garbled`: the request is applied, and its 2xx answer's body is malformed */
export type FaultKind = "status" | "latency" | "reset" | "malformed" | "late" | "garbled" | "hold";

export interface Fault {
  /** applies to requests whose path starts with this, e.g. "/v1/dashboard" */
  pathPrefix: string;
  /** optional HTTP method filter */
  method?: string;
  kind: FaultKind;
  /** for "status": the HTTP status to answer (429, 500, 503, 401…) */
  status?: number;
  /** for 429: the Retry-After header, seconds */
  retryAfterSec?: number;
  /** for "latency": added delay in ms before handling; for "late": after (real time) */
  latencyMs?: number;
  /** how many matching requests it affects; default unlimited until cleared */
  times?: number;
}

export interface RecordedRequest {
  method: string;
  /** path without the query */
  path: string;
  status: number;
  /** which credential header the request used */
  auth: "apiKey" | "token" | "none";
  /** whose credential it was (the service account's e-mail, or a person's); absent when refused */
  caller?: string;
}

export interface FleetCluster {
  uid: string;
  name: string;
  projectUid: string;
  provider: string;
  /** Pending | Provisioning | Running | Deleting | Deleted | Failed … */
  state: string;
  /** Healthy | UnHealthy | Unknown */
  health: string;
  labels: Record<string, string>;
}

export interface SimulatorControl {
  /**
   * the edge fleet (issue 39): its hosts' health, sites, outages, pairing, shells, tokens
   * (src/simulator/edge/book.ts); over HTTP under /__sim/edge
   */
  edge: EdgeBook;
  /** project UIDs, in creation order */
  projects(): string[];
  /** the clusters Palette lists; soft-deleted (Deleted) ones only with `includeDeleted` */
  clusters(projectUid?: string, options?: { includeDeleted?: boolean }): FleetCluster[];
  setState(clusterUid: string, state: string): void;
  setHealth(clusterUid: string, health: string, reason?: string): void;
  addEvent(clusterUid: string, event: { reason: string; message: string; severity?: string }): void;
  /**
   * An entry in Palette's audit log (GET /v1/audits) for the cluster, as if another Palette user
   * (`email`, actorType user), the system or a service (`serviceName`) did it; `at` default now
   */
  addAudit(entry: {
    clusterUid: string;
    actionType: "create" | "update" | "delete" | "publish" | "deploy" | "activity" | "action";
    actionMsg: string;
    email?: string;
    actorType?: "user" | "system" | "service";
    serviceName?: string;
    at?: number;
  }): void;
  /** entries in Palette's audit log, the API's own writes included */
  auditCount(): number;
  /** add a cluster directly (not through the API) and return it */
  addCluster(input: {
    name: string;
    projectUid: string;
    provider: string;
    labels?: Record<string, string>;
    /** machine pools; default a control plane of 1 and workers sized by the seed */
    pools?: Array<{ name: string; size: number; isControlPlane: boolean; instanceType: string }>;
  }): FleetCluster;
  addFault(fault: Fault): void;
  /** the cluster's backup policy names a location, so an on-demand backup has somewhere to go */
  setBackupLocation(clusterUid: string, name: string): void;
  /** Palette holds a repave of this cluster for approval (GET …/repave/status says Pending) */
  setRepavePending(clusterUid: string, reasons: string[]): void;
  /** every Kubernetes certificate of the cluster expires at `at` (epoch ms; radar, issue 28) */
  setCertificateExpiry(clusterUid: string, at: number): void;
  /** the backup policy's cron and its runs (the newest decides; needs a backup location) */
  setBackupRuns(
    clusterUid: string,
    schedule: string | undefined,
    runs: Array<{ name: string; state: string; at: number; msg?: string }>,
  ): void;
  /** the newer profile versions GET …/profileUpdates lists */
  setProfileUpdates(
    clusterUid: string,
    updates: Array<{ uid: string; name: string; version: string }>,
  ): void;
  /** every issued token that is still live expires now; returns how many */
  expireTokens(): number;
  /**
   * A personal API key for a seeded user (viewer@example.com: viewer everywhere;
   * editor@example.com: editor everywhere; solo@example.com: editor in the first project only)
   */
  issueUserKey(email: string, expiresAt?: number): string;
  /** revokes a user's key as Palette's console would; false when unknown */
  revokeUserKey(apiKey: string): boolean;
  /** the user's keys that are neither expired nor revoked */
  liveUserKeys(email: string): number;
  clearFaults(): void;
  /** requests a `hold` fault is holding now */
  held(): number;
  /** lets every held request go on, to be handled as usual */
  release(): void;
  /** every request served, oldest first */
  requests(): RecordedRequest[];
  clearRequests(): void;
}

export interface RunningSimulator {
  /** base URL without a trailing slash, e.g. http://127.0.0.1:40123 */
  url: string;
  credentials: SimulatorCredentials;
  control: SimulatorControl;
  close(): Promise<void>;
}
