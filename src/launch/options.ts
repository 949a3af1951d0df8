import type { PaletteApi } from "../palette/api.ts";
import { type Choice, type OptionSource, providerSpec } from "../palette/providers/index.ts";
import type { Provider } from "../palette/providers-list.ts";

/**
 * Choices for the form's look-up fields (cloud accounts, cluster profiles, edge hosts, cluster
 * groups, host clusters, projects), filtered by what the user typed. Slack's `block_suggestion`
 * and the console's numbered lists both use these.
 */

export type LookupSource = OptionSource | "project";

export interface LookupContext {
  provider?: Provider;
  projectUid?: string;
  /** the cluster group already picked, to narrow host clusters */
  clusterGroup?: string;
}

export const MAX_CHOICES = 100;

function matches(query: string, ...texts: Array<string | null | undefined>): boolean {
  const q = query.trim().toLowerCase();
  if (q === "") return true;
  return texts.some((t) => (t ?? "").toLowerCase().includes(q));
}

export async function loadChoices(
  palette: PaletteApi,
  source: LookupSource,
  query: string,
  context: LookupContext,
): Promise<Choice[]> {
  const scope = context.projectUid ? { projectUid: context.projectUid } : {};
  const out: Choice[] = [];
  const push = (
    value: string | null | undefined,
    label: string,
    ...also: Array<string | null | undefined>
  ) => {
    if (!value || out.length >= MAX_CHOICES) return;
    if (matches(query, label, value, ...also)) out.push({ value, label });
  };
  switch (source) {
    case "project": {
      for (const p of await palette.listProjects()) {
        push(p.metadata?.uid, p.metadata?.name ?? p.metadata?.uid ?? "");
      }
      break;
    }
    case "account": {
      const kind = context.provider ? providerSpec(context.provider).cloudAccount : undefined;
      if (!kind) break;
      for (const a of await palette.listCloudAccounts(kind, scope)) {
        const state = a.status?.state;
        push(
          a.metadata?.uid,
          `${a.metadata?.name ?? a.metadata?.uid}${state && state !== "Running" ? ` (${state})` : ""}`,
          a.metadata?.name,
        );
      }
      break;
    }
    case "profile": {
      if (!context.provider) break;
      const cloudType = providerSpec(context.provider).cloudType;
      for (const p of await palette.listClusterProfiles(scope)) {
        if (p.spec?.cloudType !== cloudType) continue;
        const version = p.spec?.version ? ` ${p.spec.version}` : "";
        push(p.metadata?.uid, `${p.metadata?.name ?? p.metadata?.uid}${version}`, p.metadata?.name);
      }
      break;
    }
    case "edge_hosts": {
      for (const h of await palette.listEdgeHosts(scope)) {
        const inUse = (h.status?.inUseClusters ?? []).length > 0;
        const state = h.status?.state ?? "";
        push(
          h.metadata?.uid,
          `${h.metadata?.name ?? h.metadata?.uid}${inUse ? " (in use)" : state ? ` (${state})` : ""}`,
          h.metadata?.name,
        );
      }
      break;
    }
    case "cluster_group": {
      for (const g of await palette.listClusterGroups(scope)) {
        push(g.metadata?.uid, g.metadata?.name ?? g.metadata?.uid ?? "", g.metadata?.name);
      }
      break;
    }
    case "host_cluster": {
      const seen = new Set<string>();
      for (const g of await palette.listClusterGroups(scope)) {
        if (context.clusterGroup && g.metadata?.uid !== context.clusterGroup) continue;
        for (const host of g.spec?.hostClusters ?? []) {
          if (!host.uid || seen.has(host.uid)) continue;
          seen.add(host.uid);
          push(host.uid, `${host.name ?? host.uid} · ${g.metadata?.name ?? "group"}`, host.name);
        }
      }
      break;
    }
  }
  return out;
}
