import type { Clock } from "../../clock.ts";
import { type Fleet, type SimEdgeHost, uid } from "../fleet.ts";
import { createRng, hashString, type Rng } from "../prng.ts";

/**
 * The simulator's edge fleet (issue 39): every edge host's life beyond what fleet.ts seeds (its
 * site, hardware, agent, pairing, remote shell and events), the registration tokens, and the
 * changes tests and the demo make (a site outage, a host dropping and recovering, a host
 * deleted). Health is a function of the clock, as a cluster's is: a few hosts flap on a seeded
 * period (down a few minutes, then back), computed when read, so a 10,000-host fleet costs
 * nothing between requests and a ManualClock drives it exactly. A change made through `control`
 * pins the host's health (it stops flapping), as a test expects.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type EdgeHealthState = "healthy" | "unhealthy";

export interface EdgeEvent {
  uid: string;
  at: number;
  reason: string;
  message: string;
  severity: "Normal" | "Warning";
}

interface Flap {
  periodMs: number;
  downMs: number;
  offsetMs: number;
}

/** What the search and the device GET show of a host beyond fleet.ts's SimEdgeHost. */
export interface EdgeLife {
  site: string;
  /** other tags (`key: value` labels), the site's among them */
  labels: Record<string, string>;
  arch: "amd64" | "arm64";
  cpuCores: number;
  memoryMB: number;
  gpus: Array<{ vendor: string; model: string; gpuCount: number; memory: string }>;
  os: { family: string; version: string };
  agentVersion: string;
  message: string;
  createdAt: number;
  modifiedAt: number;
  unpaired: boolean;
  remoteSsh: "enabled" | "disabled";
  shell?: { state: string; at: number };
  flap?: Flap;
  events: EdgeEvent[];
}

export interface EdgeToken {
  uid: string;
  name: string;
  expiry: number;
  defaultProjectUid?: string;
  active: boolean;
  createdAt: number;
}

export interface EdgeSeedOptions {
  /** edge hosts in all (at least the ones fleet.ts seeded); default what fleet.ts seeded */
  hosts?: number;
  /** share of hosts whose health flaps on its own; default 0.02 */
  flapping?: number;
}

export const AGENT_VERSION = "v4.6.12";
const OLD_AGENT = "v4.5.9";
const LOST = "Edge host lost connection: no health report received within the heartbeat window";

export interface EdgeHostView {
  host: SimEdgeHost;
  life: EdgeLife;
  state: "ready" | "unpaired" | "in-use";
  health: EdgeHealthState;
  message: string;
  lastModified: number;
}

export class EdgeBook {
  readonly #life = new Map<string, EdgeLife>();
  readonly tokens: EdgeToken[] = [];
  /** its own generator, so seeding the edge fleet leaves the fleet's draws (new uids) as they were */
  readonly #rng: Rng;

  constructor(
    readonly fleet: Fleet,
    readonly clock: Clock,
    options: EdgeSeedOptions = {},
  ) {
    this.#rng = createRng(fleet.seed ^ 0x0ed9e);
    const now = clock.now();
    const rng = this.#rng;
    const existing = fleet.edgeHosts.length;
    const wanted = Math.max(existing, Math.floor(options.hosts ?? existing));
    const edgeClusters = fleet.clusters.filter((cluster) => cluster.provider === "edge-native");
    for (let i = existing; i < wanted; i++) {
      const project = fleet.projects[i % fleet.projects.length];
      if (!project) break;
      const inProject = edgeClusters.filter((cluster) => cluster.projectUid === project.uid);
      const host = newHost(rng, project.uid, `edge-${String(i).padStart(5, "0")}`);
      // most hosts run a cluster; one in 25 waits unpaired, one in 10 is ready and unused
      const roll = rng.next();
      if (roll >= 0.14 && inProject.length > 0) {
        const cluster = inProject[i % inProject.length];
        if (cluster) {
          host.inUseClusterUid = cluster.uid;
          cluster.edgeHostUids = [...(cluster.edgeHostUids ?? []), host.uid];
        }
      }
      fleet.edgeHosts.push(host);
    }
    const flapping = options.flapping ?? 0.02;
    fleet.edgeHosts.forEach((host, index) => {
      const life = this.#seedLife(host, index, now);
      if (!host.inUseClusterUid && index >= existing && rng.chance(0.3)) life.unpaired = true;
      if (host.health === "healthy" && rng.chance(flapping)) {
        life.flap = {
          periodMs: rng.int(30, 120) * MINUTE,
          downMs: rng.int(1, 8) * MINUTE,
          offsetMs: rng.int(0, 120) * MINUTE,
        };
      }
      this.#life.set(host.uid, life);
    });
    this.#seedTokens(now);
  }

  #seedLife(host: SimEdgeHost, index: number, now: number): EdgeLife {
    const rng = this.#rng;
    const site = `store-${String(Math.floor(index / 8)).padStart(4, "0")}`;
    const arm = rng.chance(0.25);
    const createdAt = now - rng.int(20, 400) * DAY;
    const life: EdgeLife = {
      site,
      labels: { site, region: rng.pick(["us-east", "us-west", "eu-central"]) },
      arch: arm ? "arm64" : "amd64",
      cpuCores: rng.pick([4, 8, 16]),
      memoryMB: rng.pick([8192, 16384, 32768]),
      gpus: rng.chance(0.1)
        ? [{ vendor: "NVIDIA", model: "Jetson Orin", gpuCount: 1, memory: "8 GB" }]
        : [],
      os: { family: "ubuntu", version: "22.04" },
      agentVersion: rng.chance(0.05) ? OLD_AGENT : AGENT_VERSION,
      message: host.health === "unhealthy" ? LOST : "",
      createdAt,
      modifiedAt: host.health === "unhealthy" ? now - rng.int(5, 300) * MINUTE : createdAt,
      unpaired: false,
      remoteSsh: "enabled",
      events: [],
    };
    if (rng.chance(0.02)) life.shell = { state: "Created", at: now - rng.int(1, 72) * HOUR };
    return life;
  }

  #seedTokens(now: number): void {
    const rng = this.#rng;
    this.fleet.projects.forEach((project, index) => {
      this.tokens.push({
        uid: uid(rng),
        name: `${project.name.toLowerCase()}-stores`,
        // the first project's default token runs out within the radar's warning window
        expiry: now + (index === 0 ? 9 : rng.int(60, 300)) * DAY,
        defaultProjectUid: project.uid,
        active: true,
        createdAt: now - rng.int(30, 200) * DAY,
      });
    });
    this.tokens.push({
      uid: uid(rng),
      name: "retired-factory",
      expiry: now + 120 * DAY,
      ...(this.fleet.projects[0] ? { defaultProjectUid: this.fleet.projects[0].uid } : {}),
      active: false,
      createdAt: now - 300 * DAY,
    });
  }

  life(hostUid: string): EdgeLife | undefined {
    return this.#life.get(hostUid);
  }

  host(hostUid: string): SimEdgeHost | undefined {
    return this.fleet.edgeHosts.find((host) => host.uid === hostUid);
  }

  /** A host as Palette shows it now: health from the clock for a flapping host. */
  view(host: SimEdgeHost): EdgeHostView {
    const life = this.#life.get(host.uid) ?? this.#adopt(host);
    const now = this.clock.now();
    let health: EdgeHealthState = host.health;
    let message = life.message;
    let lastModified = life.modifiedAt;
    if (life.flap) {
      const { down, changedAt } = flapAt(life.flap, now);
      health = down ? "unhealthy" : "healthy";
      message = down ? LOST : "";
      lastModified = Math.max(lastModified, changedAt);
    }
    const state = life.unpaired ? "unpaired" : host.inUseClusterUid ? "in-use" : "ready";
    return { host, life, state, health, message, lastModified };
  }

  /** Hosts added to the fleet after this book was made (a launch's) get a life on first read. */
  #adopt(host: SimEdgeHost): EdgeLife {
    const life = this.#seedLife(host, this.fleet.edgeHosts.indexOf(host), this.clock.now());
    this.#life.set(host.uid, life);
    return life;
  }

  /** Every host's events, the flaps of the last day computed, newest first. */
  events(hostUid: string): EdgeEvent[] {
    const life = this.#life.get(hostUid);
    if (!life) return [];
    const events = [...life.events];
    if (life.flap) events.push(...flapEvents(hostUid, life.flap, this.clock.now()));
    return events.sort((a, b) => b.at - a.at);
  }

  #event(life: EdgeLife, hostUid: string, reason: string, message: string, warn: boolean): void {
    const at = this.clock.now();
    life.events.push({
      uid: `${hostUid.slice(-8)}-${life.events.length}-${at.toString(16)}`,
      at,
      reason,
      message,
      severity: warn ? "Warning" : "Normal",
    });
  }

  #require(hostUid: string): { host: SimEdgeHost; life: EdgeLife } {
    const host = this.host(hostUid);
    if (!host) throw new Error(`no edge host with uid ${hostUid}`);
    return { host, life: this.#life.get(hostUid) ?? this.#adopt(host) };
  }

  /** The host's health as its agent would report it (pins it: it stops flapping). */
  setHealth(hostUid: string, health: EdgeHealthState, message?: string): void {
    const { host, life } = this.#require(hostUid);
    const was = this.view(host).health;
    life.flap = undefined;
    host.health = health;
    life.message = health === "unhealthy" ? (message ?? LOST) : (message ?? "");
    if (was === health) return;
    life.modifiedAt = this.clock.now();
    if (health === "unhealthy") this.#event(life, hostUid, "EdgeHostUnhealthy", life.message, true);
    else this.#event(life, hostUid, "EdgeHostHealthy", "Edge host health checks pass again", false);
  }

  /** Every host tagged with this site (in the project, when given) loses or regains its link. */
  setSiteHealth(site: string, health: EdgeHealthState, projectUid?: string): number {
    const hosts = this.siteHosts(site, projectUid);
    for (const host of hosts) this.setHealth(host.uid, health);
    return hosts.length;
  }

  siteHosts(site: string, projectUid?: string): SimEdgeHost[] {
    return this.fleet.edgeHosts.filter(
      (host) =>
        (!projectUid || host.projectUid === projectUid) && this.#life.get(host.uid)?.site === site,
    );
  }

  /**
   * A new site of `count` hosts in the project, all healthy and in use by the project's
   * edge-native clusters (ready when it has none): what a roll-out of stores looks like.
   */
  addSite(site: string, projectUid: string, count: number): SimEdgeHost[] {
    const now = this.clock.now();
    const clusters = this.fleet.clusters.filter(
      (cluster) => cluster.provider === "edge-native" && cluster.projectUid === projectUid,
    );
    const added: SimEdgeHost[] = [];
    for (let i = 0; i < count; i++) {
      const host = newHost(this.#rng, projectUid, `${site}-h${String(i).padStart(3, "0")}`);
      host.health = "healthy";
      const cluster = clusters[i % Math.max(1, clusters.length)];
      if (cluster) {
        host.inUseClusterUid = cluster.uid;
        cluster.edgeHostUids = [...(cluster.edgeHostUids ?? []), host.uid];
      }
      this.fleet.edgeHosts.push(host);
      const life = this.#seedLife(host, 0, now);
      life.site = site;
      life.labels.site = site;
      life.createdAt = now;
      life.modifiedAt = now;
      life.shell = undefined;
      life.agentVersion = AGENT_VERSION;
      this.#life.set(host.uid, life);
      added.push(host);
    }
    return added;
  }

  /** Palette forgets the host (deleted in the console). */
  deleteHost(hostUid: string): boolean {
    const index = this.fleet.edgeHosts.findIndex((host) => host.uid === hostUid);
    if (index < 0) return false;
    const [host] = this.fleet.edgeHosts.splice(index, 1);
    const cluster = host?.inUseClusterUid ? this.fleet.byUid.get(host.inUseClusterUid) : undefined;
    if (cluster) cluster.edgeHostUids = cluster.edgeHostUids?.filter((uid) => uid !== hostUid);
    this.#life.delete(hostUid);
    return true;
  }

  /** The host is reset and waits to be paired again (or, `false`, is paired again). */
  setUnpaired(hostUid: string, unpaired: boolean): void {
    const { host, life } = this.#require(hostUid);
    if (life.unpaired === unpaired) return;
    life.unpaired = unpaired;
    life.modifiedAt = this.clock.now();
    if (unpaired && host.inUseClusterUid) {
      const cluster = this.fleet.byUid.get(host.inUseClusterUid);
      if (cluster) cluster.edgeHostUids = cluster.edgeHostUids?.filter((u) => u !== hostUid);
      host.inUseClusterUid = undefined;
    }
    this.#event(
      life,
      hostUid,
      unpaired ? "EdgeHostUnpaired" : "EdgeHostPaired",
      unpaired ? "Edge host was reset and is waiting to be paired" : "Edge host paired",
      unpaired,
    );
  }

  /** A remote shell opened (`Created`) or closed (`Deleted`) at `at` (default now). */
  setShell(hostUid: string, state: string, at?: number): void {
    const { life } = this.#require(hostUid);
    life.shell = { state, at: at ?? this.clock.now() };
  }

  setAgentVersion(hostUid: string, version: string): void {
    const { life } = this.#require(hostUid);
    life.agentVersion = version;
    life.modifiedAt = this.clock.now();
  }

  addToken(input: {
    name: string;
    expiry: number;
    defaultProjectUid?: string;
    active?: boolean;
  }): EdgeToken {
    const token: EdgeToken = {
      uid: uid(this.#rng),
      name: input.name,
      expiry: input.expiry,
      ...(input.defaultProjectUid ? { defaultProjectUid: input.defaultProjectUid } : {}),
      active: input.active ?? true,
      createdAt: this.clock.now(),
    };
    this.tokens.push(token);
    return token;
  }
}

function newHost(rng: Rng, projectUid: string, name: string): SimEdgeHost {
  return {
    uid: `edge-${rng.hex(16)}`,
    name,
    projectUid,
    address: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(2, 254)}`,
    macAddress: Array.from({ length: 6 }, () => rng.hex(2)).join(":"),
    health: rng.chance(0.03) ? "unhealthy" : "healthy",
  };
}

/** Where a flapping host is at `now`: down or up, and when that began. */
function flapAt(flap: Flap, now: number): { down: boolean; changedAt: number } {
  const phase = (((now - flap.offsetMs) % flap.periodMs) + flap.periodMs) % flap.periodMs;
  const cycleStart = now - phase;
  return phase < flap.downMs
    ? { down: true, changedAt: cycleStart }
    : { down: false, changedAt: cycleStart + flap.downMs };
}

/** The drops and recoveries of a flapping host in the last day, as events. */
function flapEvents(hostUid: string, flap: Flap, now: number): EdgeEvent[] {
  const events: EdgeEvent[] = [];
  const { changedAt, down } = flapAt(flap, now);
  let cycleStart = down ? changedAt : changedAt - flap.downMs;
  const seed = hashString(hostUid);
  for (let k = 0; cycleStart > now - DAY && k < 64; k++, cycleStart -= flap.periodMs) {
    const upAt = cycleStart + flap.downMs;
    if (upAt <= now) {
      events.push({
        uid: `${hostUid.slice(-8)}-f${(seed + upAt).toString(16)}`,
        at: upAt,
        reason: "EdgeHostHealthy",
        message: "Edge host health checks pass again",
        severity: "Normal",
      });
    }
    events.push({
      uid: `${hostUid.slice(-8)}-f${(seed + cycleStart).toString(16)}`,
      at: cycleStart,
      reason: "EdgeHostUnhealthy",
      message: LOST,
      severity: "Warning",
    });
  }
  return events;
}
