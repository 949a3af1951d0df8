/**
 * A tiny path router: patterns like `/v1/spectroclusters/:uid/status`, matched per method.
 * Parameters are URL-decoded; a trailing slash is ignored.
 */
export type Params = Record<string, string>;

export interface Route<H> {
  method: string;
  parts: string[];
  handler: H;
}

export class Router<H> {
  private readonly routes: Route<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.routes.push({ method, parts: split(pattern), handler });
    return this;
  }

  /** `undefined`: no route; `methodNotAllowed`: the path exists under another method */
  match(
    method: string,
    path: string,
  ): { handler: H; params: Params } | { methodNotAllowed: true } | undefined {
    const parts = split(path);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchParts(route.parts, parts);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params };
      pathMatched = true;
    }
    return pathMatched ? { methodNotAllowed: true } : undefined;
  }
}

function split(path: string): string[] {
  return path.split("/").filter((part) => part.length > 0);
}

function matchParts(pattern: string[], parts: string[]): Params | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] as string;
    const got = parts[i] as string;
    if (want.startsWith(":")) {
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return undefined;
      }
    } else if (want !== got) return undefined;
  }
  return params;
}
