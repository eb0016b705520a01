// Bench (not a test) of the planner against a running `roadbook dev`
// (scripts/bench-web.sh starts it): a 30-day trip is created from the
// Oslo–Trondheim fixture with dates that fix 30 days, then, in one
// Chromium, alternately N times each:
//   trip     — page load of /app/trips/<id> until its 30 day rows are in the DOM
//   baseline — page load of /app/ (same bundle, same sign-in, one ListTrips)
//              until the trip list is in the DOM
// and prints the median and p90 of each and their ratio, plus the gzipped
// size of the planner's JS and CSS (the committed bundle). Each load is a
// fresh navigation in the same signed-in tab (the HTTP cache keeps the
// immutable assets, as a returning rider's browser would).
import { chromium } from "playwright-core";
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { api, fixture, info } from "../e2e/dev.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.env.RUNS || 15);

const dist = join(here, "..", "..", "..", "services", "api", "planner", "dist", "assets");
let js = 0;
let css = 0;
for (const f of readdirSync(dist)) {
  const gz = gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
  if (f.endsWith(".js")) js += gz;
  if (f.endsWith(".css")) css += gz;
}

const created = await api("roadbook.v1.TripService/CreateTripFromUpload", {
  filename: "oslo-trondheim.gpx", content: readFileSync(fixture).toString("base64"), title: "Bench: 30 days",
  settings: { startDate: "2031-06-01", endDate: "2031-06-30" },
});
const tripId = created.tripId;
let days = 0;
for (let i = 0; i < 240; i++) {
  const d = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip;
  days = d.stages?.length ?? 0;
  if (!d.partial && days > 0) break;
  await new Promise((r) => setTimeout(r, 250));
}
if (days !== 30) throw new Error(`expected a 30-day trip, got ${days} days`);

const browser = await chromium.launch({
  executablePath: process.env.ROADBOOK_CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(info.appUrl);
await page.locator("[data-testid=dropzone]").waitFor({ timeout: 30_000 });

// load navigates and measures, from the navigation's start (the browser's
// own clock), until the condition holds.
async function load(url, cond, arg) {
  await page.goto("about:blank");
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction(cond, arg, { timeout: 30_000, polling: "raf" });
  return page.evaluate(() => performance.now());
}
const tripMs = [];
const baseMs = [];
for (let i = 0; i < runs + 2; i++) {
  const a = await load(`${info.appUrl}trips/${tripId}`, (n) => document.querySelectorAll("[data-testid=day-row]").length === n, 30);
  const b = await load(info.appUrl, () => document.querySelectorAll("[data-testid=trip-card]").length > 0);
  if (i >= 2) { // two warm-up rounds
    tripMs.push(a);
    baseMs.push(b);
  }
}
await browser.close();

const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const f = (x) => x.toFixed(0);
console.log(`planner bundle gzip js_kb=${(js / 1024).toFixed(1)} css_kb=${(css / 1024).toFixed(1)} total_kb=${((js + css) / 1024).toFixed(1)} budget_kb=350`);
console.log(`planner load-to-day-list days=30 runs=${runs} p50_ms=${f(q(tripMs, 0.5))} p90_ms=${f(q(tripMs, 0.9))} baseline_list_p50_ms=${f(q(baseMs, 0.5))} baseline_list_p90_ms=${f(q(baseMs, 0.9))} ratio_p50=${(q(tripMs, 0.5) / q(baseMs, 0.5)).toFixed(2)} budget_ms=1500`);
