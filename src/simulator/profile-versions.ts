import type { Fleet, SimCluster, SimProfile } from "./fleet.ts";

/**
 * Each seeded cluster profile has one newer version the bot can upgrade a cluster to. Derived
 * from the profile (no random draws), so seeded fleets stay exactly as they were.
 */

export interface ProfileVersion {
  /** the version's own uid (Palette gives each version of a profile its own) */
  uid: string;
  profile: SimProfile;
  version: string;
  packs: Array<{ name: string; tag: string; layer: string }>;
}

function nextMinor(version: string): string {
  const [major = "1", minor = "0"] = version.split(".");
  return `${major}.${Number(minor) + 1}.0`;
}

/** the newer version's uid: the profile's, with its last four hex digits turned */
function nextUid(uid: string): string {
  const tail = uid.slice(-4);
  const turned = ((Number.parseInt(tail, 16) + 0x8000) % 0x10000).toString(16).padStart(4, "0");
  return `${uid.slice(0, -4)}${turned}`;
}

function packsOf(profile: SimProfile, newer: boolean) {
  return [
    { name: "ubuntu", tag: "22.04", layer: "os" },
    { name: "kubernetes", tag: newer ? "1.29.6" : "1.29.4", layer: "k8s" },
    { name: "cni-calico", tag: newer ? "3.27.3" : "3.27.0", layer: "cni" },
    { name: `csi-${profile.cloudType}`, tag: "1.0.0", layer: "csi" },
  ];
}

export function versionsOf(profile: SimProfile): ProfileVersion[] {
  return [
    { uid: profile.uid, profile, version: profile.version, packs: packsOf(profile, false) },
    {
      uid: nextUid(profile.uid),
      profile,
      version: nextMinor(profile.version),
      packs: packsOf(profile, true),
    },
  ];
}

export function profileVersion(fleet: Fleet, uid: string): ProfileVersion | undefined {
  for (const profile of fleet.profiles) {
    const found = versionsOf(profile).find((version) => version.uid === uid);
    if (found) return found;
  }
  return undefined;
}

/** the profile version a cluster runs now: an upgrade lands once its time has passed */
export function attachedProfileUid(cluster: SimCluster, now: number, settleMs: number): string {
  const upgrade = cluster.profileUpgrade;
  return upgrade && now >= upgrade.at + settleMs ? upgrade.to : cluster.profileUid;
}
