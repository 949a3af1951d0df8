import { describe, expect, it } from "vitest";
import { proxyLine } from "../../src/app/doctor.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { describeProxy, noProxyRanges, proxyAddress, proxyInUse } from "../../src/proxy.ts";

/** The proxy settings (issue 38 item 3): parsed once, shown by host and port only. */

const BASE = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1", PALETTE_API_KEY: "key" };
const proxyOf = (env: Record<string, string>) => loadConfig({ ...BASE, ...env }).proxy;

describe("HTTPS_PROXY, HTTP_PROXY, NO_PROXY", () => {
  it("are off when unset or empty", () => {
    expect(proxyInUse(proxyOf({}))).toBe(false);
    expect(proxyInUse(proxyOf({ HTTPS_PROXY: " ", HTTP_PROXY: "" }))).toBe(false);
    expect(describeProxy(proxyOf({}))).toBeUndefined();
  });

  it("take the lower-case form over the upper-case one, as curl and undici do", () => {
    const proxy = proxyOf({
      HTTPS_PROXY: "http://upper:3128",
      https_proxy: "http://lower:3128",
      NO_PROXY: "upper.example",
      no_proxy: ".svc,palette.internal:443",
    });
    expect(proxy.httpsProxy?.reveal()).toBe("http://lower:3128");
    expect(proxy.noProxy).toBe(".svc,palette.internal:443");
  });

  it("refuse a value that is not an http(s) URL, naming the variable but not the value", () => {
    for (const value of ["proxy.corp:3128", "socks5://u:secretpw@proxy:1080", "http://"]) {
      let error: unknown;
      try {
        proxyOf({ HTTPS_PROXY: value });
      } catch (caught) {
        error = caught;
      }
      expect(error, value).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^HTTPS_PROXY: wants the proxy's URL/);
      expect((error as Error).message).not.toContain("secretpw");
    }
  });

  it("are described by host and port, never the user or password in the URL", () => {
    const proxy = proxyOf({
      HTTPS_PROXY: "http://ops:s3cret%21@proxy.corp:3128",
      HTTP_PROXY: "http://plain.corp",
      NO_PROXY: ".svc",
    });
    const text = describeProxy(proxy)!;
    expect(text).toBe(
      "https:// through proxy.corp:3128, http:// through plain.corp:80, not for NO_PROXY (.svc)",
    );
    expect(text).not.toMatch(/ops|s3cret/);
    expect(String(proxy.httpsProxy)).not.toContain("s3cret");
    expect(proxyAddress("https://proxy.corp")).toBe("proxy.corp:443");
  });

  it("use HTTP_PROXY for https:// too when HTTPS_PROXY is unset (undici's rule)", () => {
    expect(describeProxy(proxyOf({ HTTP_PROXY: "http://only:8080" }))).toBe(
      "https:// through only:8080, http:// through only:8080, NO_PROXY empty",
    );
  });
});

describe("a CIDR range in NO_PROXY (issue 38, review finding 6)", () => {
  it("is picked out, hosts and host:port are not", () => {
    expect(noProxyRanges(".svc, 10.0.0.0/8 palette.internal:8443,fd00::/8")).toEqual([
      "10.0.0.0/8",
      "fd00::/8",
    ]);
    expect(noProxyRanges(".svc,.cluster.local")).toEqual([]);
  });

  it("makes the doctor's proxy line a warning naming the range, with hosts as the fix", () => {
    const config = loadConfig({
      ...BASE,
      HTTPS_PROXY: "http://proxy.corp:3128",
      NO_PROXY: ".svc,10.0.0.0/8",
    });
    const line = proxyLine(config);
    expect(line.status).toBe("warn");
    expect(line.result).toContain("10.0.0.0/8 exempts nothing");
    expect(line.fix).toContain(".svc");
    expect(proxyLine(loadConfig({ ...BASE, HTTPS_PROXY: "http://proxy.corp:3128" })).status).toBe(
      "pass",
    );
  });
});
