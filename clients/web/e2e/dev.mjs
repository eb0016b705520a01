// What the end-to-end test (e2e/planner.test.mjs) and the bench
// (bench/load.mjs) share about the running `roadbook dev` their scripts
// start (scripts/dev-up.sh sets ROADBOOK_DEV_JSON): its dev.json, the
// Oslo–Trondheim fixture (testkit/fixtures), and Connect JSON calls as the
// dev user. Not a test file: node's runner picks only *.test.mjs here.
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const devJson = process.env.ROADBOOK_DEV_JSON;
if (!devJson) throw new Error("ROADBOOK_DEV_JSON is not set: run scripts/web-e2e.sh or scripts/bench-web.sh");

/** dev.json of the running instance: appUrl, apiUrl, apiToken, … */
export const info = JSON.parse(readFileSync(devJson, "utf8"));

/** The 627 km Oslo–Trondheim GPX. */
export const fixture = join(here, "..", "..", "..", "testkit", "fixtures", "gpx", "long_brouter_oslo-trondheim_fastbike.gpx");

/** api calls the Connect API with Connect's JSON protocol as the dev user; anything but 200 throws, naming the call. */
export async function api(procedure, body) {
  const res = await fetch(`${info.apiUrl}/${procedure}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${info.apiToken}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${procedure}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
