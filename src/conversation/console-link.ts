/**
 * Palette console links, read back: the console shows a project's cluster at
 * `<console>/projects/<project>/clusters/<uid>/<tab>` (the link every card's "Open in Palette"
 * button makes, src/views/cluster-card.ts), a tenant cluster at `<console>/admin/clusters/<uid>/…`,
 * and a project's pages under `<console>/projects/<project>/…`.
 */
export type ConsoleLink =
  | { kind: "cluster"; url: string; clusterUid: string; projectUid: string | undefined }
  | { kind: "project"; url: string; projectUid: string };

/** Palette UIDs are 24 hex characters; the simulator's are words: letters, digits, `-`, `_`, `.` */
const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The link, if it is a cluster or project page of this console; anything else is undefined. */
export function parseConsoleLink(url: string, consoleUrl: string): ConsoleLink | undefined {
  let link: URL;
  let base: URL;
  try {
    link = new URL(url);
    base = new URL(consoleUrl);
  } catch {
    return undefined;
  }
  if (link.protocol !== "https:" && link.protocol !== "http:") return undefined;
  if (link.host.toLowerCase() !== base.host.toLowerCase()) return undefined;
  const basePath = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
  if (!link.pathname.startsWith(basePath)) return undefined;
  let parts: string[];
  try {
    parts = link.pathname.slice(basePath.length).split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [area, first, section, second] = parts;
  if (area === "admin" && first === "clusters" && section !== undefined && ID.test(section)) {
    return { kind: "cluster", url, clusterUid: section, projectUid: undefined };
  }
  if (area !== "projects" || first === undefined || !ID.test(first)) return undefined;
  if (section === "clusters" && second !== undefined && ID.test(second)) {
    return { kind: "cluster", url, clusterUid: second, projectUid: first };
  }
  return { kind: "project", url, projectUid: first };
}
