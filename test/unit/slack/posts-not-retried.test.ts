import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { slackClientOptions } from "../../../src/slack/app.ts";

/**
 * Issue 37 item 2: the app's WebClient retried every failed call twice, chat.postMessage too. A
 * post Slack took but answered with a 5xx (or not in time) was sent again: two messages. Now a
 * post fails at its first failure; reads and edits still retry (sent again, they show nothing
 * twice).
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** a Slack that has taken every call and answers each one 500 (a gateway after the commit) */
async function slackAnswering500(): Promise<{ apiUrl: string; calls: string[] }> {
  const calls: string[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls.push((req.url ?? "").replace("/api/", ""));
      res.writeHead(500, { "content-type": "text/plain" }).end("upstream failed");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, calls };
}

describe("the app's Slack client", () => {
  it("sends a chat.postMessage once, whatever its failure", async () => {
    const slack = await slackAnswering500();
    const counted: string[] = [];
    const client = new webApi.WebClient(
      "xoxb-test",
      slackClientOptions(slack.apiUrl, (method, outcome) => counted.push(`${method} ${outcome}`)),
    );
    await expect(client.chat.postMessage({ channel: "C1", text: "hello" })).rejects.toThrow();
    expect(slack.calls).toEqual(["chat.postMessage"]);
    // the call counter still sees it
    expect(counted).toEqual(["chat.postMessage http_500"]);
  });

  it("still retries an edit, which shows nothing twice", async () => {
    const slack = await slackAnswering500();
    const client = new webApi.WebClient("xoxb-test", slackClientOptions(slack.apiUrl));
    await expect(
      client.chat.update({ channel: "C1", ts: "1.000001", text: "hi" }),
    ).rejects.toThrow();
    expect(slack.calls).toEqual(["chat.update", "chat.update", "chat.update"]);
  });

  it("sends a chat.postMessage whose answer never came once", async () => {
    const calls: string[] = [];
    // Slack takes the post and never answers: the client's time-out ends the call
    server = createServer((req) => {
      req.resume();
      calls.push(req.url ?? "");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
    const client = new webApi.WebClient("xoxb-test", {
      ...slackClientOptions(apiUrl),
      timeout: 200,
    });
    await expect(client.chat.postMessage({ channel: "C1", text: "hello" })).rejects.toThrow();
    expect(calls).toEqual(["/api/chat.postMessage"]);
  });
});
