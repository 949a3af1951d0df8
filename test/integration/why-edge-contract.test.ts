import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport } from "../../src/palette/http.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import {
  openapi,
  responseDefinition,
  schemaErrors,
  templateOf,
} from "../support/simulator-openapi.ts";

/**
 * The reads of `why <edge host>` (issue 39, item 4) against the spec subset: Palette's audit of
 * a host (`GET /v1/audits` narrowed by `resourceUid`) and the host's events
 * (`GET /v1/events/components/edgehost/{uid}`, project scope), each query parameter the client
 * sends declared by the operation and each answer on the wire valid against its definition. The
 * simulator's control route that adds a host's audit entries refuses an unknown host and a bad
 * body.
 */

const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));
let sim: RunningSimulator;
let palette: PaletteClient;
const wire: Array<{ method: string; path: string; query: string; status: number; answer: string }> =
  [];

beforeAll(async () => {
  sim = await startSimulator({ clusters: 24, projects: 2, seed: 5, clock, edgeHosts: 40 });
  const inner = createUndiciTransport(sim.url);
  palette = apiKeyClient(sim, {
    transport: {
      async send(request) {
        const response = await inner.send(request);
        const [path, query] = request.path.split("?");
        wire.push({
          method: request.method,
          path: path!,
          query: query ?? "",
          status: response.status,
          answer: response.body.toString("utf8"),
        });
        return response;
      },
      close: () => inner.close(),
    },
  });
});

afterAll(async () => {
  await palette.close();
  await sim.close();
});

const addAudit = (hostUid: string, body: unknown) =>
  fetch(`${sim.url}/__sim/edge/hosts/${hostUid}/audits`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("why <edge host>'s reads against the spec subset", () => {
  it("a host's audit entries and events conform, and every query parameter is declared", async () => {
    const project = sim.control.projects()[0]!;
    const host = sim.control.edge.fleet.edgeHosts.find((h) => h.projectUid === project)!;
    expect(
      (
        await addAudit(host.uid, {
          actionType: "update",
          actionMsg: "tags updated",
          email: "editor@example.com",
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await addAudit(host.uid, {
          actionType: "delete",
          actionMsg: "by a service",
          actorType: "service",
          serviceName: "edge-svc",
        })
      ).status,
    ).toBe(201);
    sim.control.edge.setHealth(host.uid, "unhealthy", "link down");
    wire.length = 0;

    const audits = await palette.listAudits(
      {
        resourceUid: host.uid,
        projectUid: project,
        startTime: clock.now() - 3600_000,
        endTime: clock.now(),
      },
      { projectUid: project },
    );
    expect(audits.items.map((item) => item.spec?.actionMsg)).toEqual([
      "by a service",
      "tags updated",
    ]);
    expect(audits.items[0]!.spec?.resource).toMatchObject({
      kind: "edgehost",
      uid: host.uid,
      name: host.name,
    });
    const events = await palette.edgeHostEventsPage(host.uid, { projectUid: project });
    expect(events.items[0]).toMatchObject({ reason: "EdgeHostUnhealthy", message: "link down" });

    expect(wire).toHaveLength(2);
    for (const exchange of wire) {
      expect(exchange.status).toBe(200);
      const template = templateOf(exchange.method, exchange.path);
      const operation = openapi.paths[template]![exchange.method.toLowerCase()]!;
      const declared = new Set(
        (operation.parameters as Array<{ name: string; in: string }>)
          .filter((parameter) => parameter.in === "query")
          .map((parameter) => parameter.name),
      );
      for (const name of new URLSearchParams(exchange.query).keys()) {
        expect(declared, `${template} ?${name}`).toContain(name);
      }
      const definition = responseDefinition(exchange.method.toLowerCase(), template);
      expect(schemaErrors(definition, JSON.parse(exchange.answer))).toEqual([]);
    }
  });

  it("the control route refuses an unknown host and a body that is not an audit entry", async () => {
    expect(
      (await addAudit("000000000000000000000000", { actionType: "update", actionMsg: "x" })).status,
    ).toBe(404);
    const host = sim.control.edge.fleet.edgeHosts[0]!;
    expect((await addAudit(host.uid, { actionType: "rename", actionMsg: "x" })).status).toBe(400);
    expect(
      (
        await addAudit(host.uid, {
          actionType: "update",
          actionMsg: "x",
          email: "nobody@example.com",
        })
      ).status,
    ).toBe(400);
  });
});
