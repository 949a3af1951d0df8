import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";

/**
 * A forward proxy on 127.0.0.1 for the proxy tests (issue 38): it tunnels `CONNECT host:port`
 * and relays absolute-form requests (`GET http://host:port/path`), and remembers each upstream
 * connection it opened by its local port. A `Gate` stands in front of a test server and notes the
 * peer port of every connection it gets: a connection whose peer is one of the proxy's upstream
 * sockets came through the proxy, any other came direct. So "every request went through the
 * proxy" is checked from the server's side, not from what the bot says it did.
 */

export interface CountingProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** `host:port` of each CONNECT, in order */
  tunnels: string[];
  /** `METHOD http://host:port/path` of each absolute-form request, in order */
  relayed: string[];
  /** each Proxy-Authorization header the proxy got (a proxy URL with a user sends one) */
  authorizations: string[];
  /** local ports of the proxy's own connections to the targets */
  upstreamPorts: Set<number>;
  close(): Promise<void>;
}

/**
 * What the proxy does with a CONNECT: tunnel it; close the connection without a word (a proxy
 * that drops what its policy refuses); or hold it open and never answer.
 */
export type TunnelMode = "tunnel" | "close" | "silent";

export async function startCountingProxy(
  options: { connect?: TunnelMode } = {},
): Promise<CountingProxy> {
  const mode = options.connect ?? "tunnel";
  const sockets = new Set<Socket>();
  const proxy: Omit<CountingProxy, "url" | "close"> = {
    tunnels: [],
    relayed: [],
    authorizations: [],
    upstreamPorts: new Set(),
  };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createHttpServer((request, response) => {
    proxy.relayed.push(`${request.method} ${request.url}`);
    if (request.headers["proxy-authorization"])
      proxy.authorizations.push(request.headers["proxy-authorization"]);
    const target = new URL(request.url ?? "");
    const { "proxy-authorization": _, "proxy-connection": __, ...headers } = request.headers;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: request.method,
        headers,
        agent: false,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("socket", (socket) => {
      socket.on("connect", () => proxy.upstreamPorts.add(socket.localPort!));
    });
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  server.on("connection", track);
  server.on("connect", (request, client: Socket, head: Buffer) => {
    proxy.tunnels.push(request.url ?? "");
    if (request.headers["proxy-authorization"])
      proxy.authorizations.push(request.headers["proxy-authorization"]);
    if (mode === "close") {
      client.destroy();
      return;
    }
    // held: the socket is already tracked, so close() ends it
    if (mode === "silent") return;
    const [host, port] = (request.url ?? "").split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host!, () => {
      proxy.upstreamPorts.add(upstream.localPort!);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    ...proxy,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Gate {
  /** the gate's own base, same scheme and path as the target's: `http://127.0.0.1:<gate>/v1` */
  url: string;
  port: number;
  /** the peer port of each connection the gate got */
  peers: number[];
  close(): Promise<void>;
}

/** A TCP relay in front of `target` (a URL on 127.0.0.1) that notes who connects to it. */
export async function startGate(target: string): Promise<Gate> {
  const to = new URL(target);
  const peers: number[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    peers.push(client.remotePort!);
    const upstream = connect(Number(to.port), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = new URL(target);
  url.port = String(port);
  return {
    url: url.toString().replace(/\/$/, target.endsWith("/") ? "/" : ""),
    port,
    peers,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
