import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PaletteFaults, startPaletteFaults } from "../../../bench/chaos/palette-faults.ts";

const SEARCH = "/v1/dashboard/spectroclusters/search";
let upstream: Server;
let faults: PaletteFaults;

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ items: [{ n: 1 }, { n: 2 }, { n: 3 }], listmeta: {} }));
  });
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  const { port } = upstream.address() as AddressInfo;
  faults = await startPaletteFaults({
    target: `http://127.0.0.1:${port}`,
    faultRate: 0,
    gapRate: 1,
    seed: 7,
  });
});

afterAll(async () => {
  await faults.close();
  upstream.close();
});

async function search(body: unknown): Promise<number> {
  const answer = await request(`${faults.url}${SEARCH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const parsed = (await answer.body.json()) as { items: unknown[] };
  return parsed.items.length;
}

describe("the chaos suite's Palette fault proxy", () => {
  it("drops an item from a listing page", async () => {
    expect(await search({ filter: { conjunction: "and", filterGroups: [] } })).toBe(2);
    expect(faults.counts().gaps).toBe(1);
  });

  it("leaves a search for one name whole: nobody could tell that gap from Palette's answer", async () => {
    const byName = {
      filter: {
        conjunction: "and",
        filterGroups: [
          { conjunction: "and", filters: [{ property: "clusterName", type: "string" }] },
        ],
      },
    };
    expect(await search(byName)).toBe(3);
    expect(faults.counts().gaps).toBe(1);
  });
});
