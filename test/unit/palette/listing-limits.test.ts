import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.ts";
import { createPaletteClient } from "../../../src/palette/client.ts";
import { describeForUser, PaletteError } from "../../../src/palette/errors.ts";
import { createUndiciTransport, type Transport } from "../../../src/palette/http.ts";
import { Secret } from "../../../src/secret.ts";

/** Search pages as a transport answers them: `tokens[i]` is page i's continue token. */
function pagedTransport(tokens: string[]): { transport: Transport; pages: () => number } {
  let page = 0;
  return {
    transport: {
      async send() {
        const token = tokens[Math.min(page, tokens.length - 1)] ?? "";
        page++;
        const body = {
          items: [{ metadata: { uid: `u${page}`, name: `c${page}` } }],
          listmeta: { continue: token, count: 1 },
        };
        return { status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)) };
      },
      async close() {},
    },
    pages: () => page,
  };
}

function paletteOver(transport: Transport) {
  return createPaletteClient({
    baseUrl: "http://palette.invalid",
    credentials: { kind: "apiKey", apiKey: new Secret("key-1") },
    logger: silentLogger,
    transport,
    rateLimit: false,
    retries: 0,
  });
}

async function drain(iterable: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of iterable) count++;
  return count;
}

describe("a listing that ends early is an error, not a shorter fleet", () => {
  it("reads every page while the tokens move on", async () => {
    const { transport } = pagedTransport(["a", "b", ""]);
    expect(await drain(paletteOver(transport).searchAllClusters({}))).toBe(3);
  });

  it("fails when Palette hands back a continue token it gave before", async () => {
    const { transport, pages } = pagedTransport(["a", "b", "a"]);
    const error = await drain(paletteOver(transport).searchAllClusters({})).catch((e) => e);
    expect(error).toBeInstanceOf(PaletteError);
    expect((error as PaletteError).code).toBe("IncompleteListing");
    expect((error as PaletteError).message).toMatch(/did not finish/);
    expect(pages()).toBe(3);
  });
});

describe("Palette response bodies have a size limit", () => {
  it("refuses an answer larger than the limit with a clear, non-retried error", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ items: [], padding: "x".repeat(64 * 1024) }));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const transport = createUndiciTransport(`http://127.0.0.1:${port}`, {
      maxBodyBytes: 16 * 1024,
    });
    try {
      const error = await paletteOver(transport)
        .searchClusters({ limit: 50 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(PaletteError);
      expect((error as PaletteError).code).toBe("ResponseTooLarge");
      expect((error as PaletteError).message).toMatch(/larger than the bot accepts/);
      // what a user reads: the bot's own words, not "Palette refused the request"
      expect(describeForUser(error)).toMatch(
        /^Palette's answer was larger than the bot accepts; narrow/,
      );
    } finally {
      await transport.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
