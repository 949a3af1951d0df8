/**
 * Palette's rate limits, as its API documentation states them: per source IP and path prefix,
 * 10 requests a second on most prefixes and 50 on the cluster, cloud-config and profile ones.
 * The one definition the client's pacer, its metrics labels and the simulator's enforcer share.
 */

export interface RateRule {
  /** path segments; `*` matches any one segment, e.g. `/v1/spectroclusters/*\/assets` */
  pattern: string;
  perSecond: number;
}

export const DOCUMENTED_LIMITS: readonly RateRule[] = [
  { pattern: "/v1/dashboard", perSecond: 10 },
  { pattern: "/v1/auth", perSecond: 10 },
  { pattern: "/v1/projects", perSecond: 10 },
  { pattern: "/v1/events", perSecond: 10 },
  { pattern: "/v1/cloudaccounts", perSecond: 10 },
  { pattern: "/v1/spectroclusters/*/assets", perSecond: 10 },
  { pattern: "/v1/spectroclusters", perSecond: 50 },
  { pattern: "/v1/cloudconfigs", perSecond: 50 },
  { pattern: "/v1/clusterprofiles", perSecond: 50 },
];

/** Prefixes Palette does not document (e.g. /v1/clustergroups) get the stricter documented rate. */
export const DEFAULT_PER_SECOND = 10;

const segments = (path: string): string[] => path.split("?")[0]!.split("/").filter(Boolean);

/**
 * The rule that governs a path: the matching rule with the most segments wins, so
 * `/v1/spectroclusters/{uid}/assets/kubeconfig` is paced at 10/s, not 50/s.
 * Unknown prefixes are keyed by their first two segments.
 */
export function ruleFor(path: string, rules: readonly RateRule[] = DOCUMENTED_LIMITS): RateRule {
  const parts = segments(path);
  let best: RateRule | undefined;
  let bestLength = -1;
  for (const rule of rules) {
    const pattern = segments(rule.pattern);
    if (pattern.length > parts.length || pattern.length <= bestLength) continue;
    if (pattern.every((segment, i) => segment === "*" || segment === parts[i])) {
      best = rule;
      bestLength = pattern.length;
    }
  }
  return best ?? { pattern: `/${parts.slice(0, 2).join("/")}`, perSecond: DEFAULT_PER_SECOND };
}

/** A readable name of the rule's prefix, used as a stats and metrics label. */
export function prefixLabel(rule: RateRule): string {
  return rule.pattern.replace("/*/", "/{uid}/");
}

/** The documented limit of a path, or undefined where Palette documents none (the simulator's view). */
export function documentedLimit(path: string): { prefix: string; perSecond: number } | undefined {
  const rule = ruleFor(path);
  if (!DOCUMENTED_LIMITS.includes(rule)) return undefined;
  return { prefix: prefixLabel(rule), perSecond: rule.perSecond };
}
