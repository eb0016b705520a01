// What a running `roadbook dev` publishes in <data-dir>/dev.json, and the
// 627 km fixture both scenarios upload.
import { readFileSync } from "node:fs";

import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";

/** The fields of dev.json the scenarios use. */
export interface DevInfo {
  apiUrl: string;
  mcpUrl: string;
  apiToken: string;
  mcpToken: string;
}

/**
 * devInfo reads the dev.json named by $ROADBOOK_DEV_JSON (scripts/interop.sh
 * sets it): the scenarios talk to a real server, never to a stand-in.
 */
export function devInfo(): DevInfo {
  const path = process.env.ROADBOOK_DEV_JSON;
  if (!path) {
    throw new Error("ROADBOOK_DEV_JSON is not set: run scripts/interop.sh, or point it at a roadbook dev data dir's dev.json");
  }
  const info = JSON.parse(readFileSync(path, "utf8")) as Partial<DevInfo>;
  for (const k of ["apiUrl", "mcpUrl", "apiToken", "mcpToken"] as const) {
    if (typeof info[k] !== "string" || info[k] === "") {
      throw new Error(`${path}: ${k} is missing`);
    }
  }
  return info as DevInfo;
}

/** The 627 km Oslo → Trondheim route: the repository's one copy of the shared fixtures (testkit/fixtures/SOURCES.md). */
export const fixtureName = "long_brouter_oslo-trondheim_fastbike.gpx";

/** fixture returns the route document's bytes. */
export function fixture(): Buffer {
  return readFileSync(new URL(`../../../testkit/fixtures/gpx/${fixtureName}`, import.meta.url));
}

/** sleep waits ms milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * apiTransport is the Connect API of dev as a frontend calls it: HTTP/1.1
 * like a browser's fetch (Connect's server streams work on it too), the dev
 * API token as the bearer.
 */
export function apiTransport(dev: DevInfo): Transport {
  const bearer: Interceptor = (next) => (req) => {
    req.header.set("Authorization", `Bearer ${dev.apiToken}`);
    return next(req);
  };
  return createConnectTransport({ baseUrl: dev.apiUrl, httpVersion: "1.1", interceptors: [bearer] });
}
