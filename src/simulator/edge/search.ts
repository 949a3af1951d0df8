import { z } from "zod";
import { EDGE_SORT_FIELDS } from "../../palette/edge-search-body.ts";
import { tagsOf } from "../../palette/tags.ts";
import { ApiError } from "../http-util.ts";
import { matchesLookup, searchBodySchema } from "../search.ts";
import type { EdgeHostView } from "./book.ts";

/**
 * The filter and sort of POST /v1/dashboard/edgehosts/search, as Palette evaluates them: the
 * same conditions and conjunctions as the cluster search (src/simulator/search.ts) over a host's
 * own properties (`name`, `tags` as `key:value`, `state`, `healthState` in lower case,
 * `architecture`); a property it does not know is a 400. Palette 4.10 sorts hosts on `name`,
 * `state`, `healthState`, `creationTimestamp` and `lastModifiedTimestamp` and answers any other
 * sort field with a 422, which is what this does.
 */

export const edgeSearchBodySchema = searchBodySchema.omit({ sort: true }).extend({
  sort: z
    .array(z.object({ field: z.string(), order: z.enum(["asc", "desc"]).default("asc") }))
    .nullish(),
});
export type EdgeSearchBody = z.infer<typeof edgeSearchBodySchema>;

const SORTABLE: ReadonlySet<string> = new Set(EDGE_SORT_FIELDS);

/** A 422 for a sort field Palette does not sort hosts on, before anything is listed. */
export function checkEdgeSort(body: EdgeSearchBody): void {
  for (const { field } of body.sort ?? []) {
    if (!SORTABLE.has(field)) {
      throw new ApiError(
        422,
        "InvalidSortField",
        `sort field '${field}' is not supported for edge hosts; use one of ${EDGE_SORT_FIELDS.join(", ")}`,
      );
    }
  }
}

function valuesOf(view: EdgeHostView, property: string): string[] | undefined {
  switch (property) {
    case "name":
      return [view.host.name];
    case "tags":
      return tagsOf(view.life.labels);
    case "state":
      return [view.state];
    case "healthState":
      return [view.health];
    case "architecture":
      return [view.life.arch];
    default:
      return undefined;
  }
}

export function matchesEdgeSearch(view: EdgeHostView, body: EdgeSearchBody): boolean {
  return matchesLookup(
    { values: (property) => valuesOf(view, property), bool: () => undefined },
    body,
  );
}

function sortKey(view: EdgeHostView, field: string): string | number {
  switch (field) {
    case "name":
      return view.host.name;
    case "state":
      return view.state;
    case "healthState":
      return view.health;
    case "creationTimestamp":
      return view.life.createdAt;
    default:
      return view.lastModified;
  }
}

/** Sorted as asked, then by uid so pages never shift between equal keys. */
export function sortEdgeHosts(views: EdgeHostView[], body: EdgeSearchBody): EdgeHostView[] {
  const sort = body.sort ?? [];
  return [...views].sort((a, b) => {
    for (const { field, order } of sort) {
      const x = sortKey(a, field);
      const y = sortKey(b, field);
      if (x !== y) return (x < y ? -1 : 1) * (order === "desc" ? -1 : 1);
    }
    return a.host.uid < b.host.uid ? -1 : a.host.uid > b.host.uid ? 1 : 0;
  });
}
