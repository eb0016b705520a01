// The planner as a rider uses it, in Debian's Chromium driven by
// playwright-core (no browser download), against a running `roadbook dev`
// (scripts/web-e2e.sh starts it and sets ROADBOOK_DEV_JSON): open appUrl
// (signed in without typing), drop the Oslo–Trondheim GPX, watch the
// progress, see one day row per stage and one line per day on the map and
// the profile joined at every day boundary, read a day's weather and
// resupply points, cut day 2 on the profile, undo, add a rest day, export
// GPX, share and open the share page, choose the beginner preset and see
// more, shorter days, then edit one value and see the trip turn custom, keep an
// agent's write that lands while the page reads the trip after its own; axe-core on the list and the trip page; screenshots at
// 390 and 1280 px in ROADBOOK_SCREENSHOTS (default: a temporary directory,
// printed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { api, fixture, info } from "./dev.mjs";
import { pb } from "./proto.mjs";

const require = createRequire(import.meta.url);
const shots = process.env.ROADBOOK_SCREENSHOTS || join(tmpdir(), "roadbook-planner-screenshots");
mkdirSync(shots, { recursive: true });
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

// The flags this machine needs: no sandbox as root, no GPU, and none of
// Chromium's background traffic (the network is closed).
const browserArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];

// axeSerious runs axe-core in the page (evaluated through the DevTools
// protocol, which the page's CSP does not govern) and returns the serious
// and critical violations.
async function axeSerious(page) {
  await page.evaluate(axeSource);
  const res = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
  return res.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

const version = async (page) => Number(await page.locator("[data-testid=trip-version]").textContent());
const dayKm = async (page, i) => parseFloat((await page.locator(`[data-testid=day-row][data-stage-index="${i}"] [data-testid=day-km]`).textContent()).replace(",", "."));

test("a rider plans, edits, undoes, exports and shares a trip in the planner", { timeout: 240_000 }, async (t) => {
  const browser = await chromium.launch({ executablePath: process.env.ROADBOOK_CHROMIUM || "/usr/bin/chromium", args: browserArgs });
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, locale: "en-GB" });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", async (r) => {
    if (r.status() < 400) return;
    const body = await r.text().catch(() => "");
    problems.push(`HTTP ${r.status()} ${r.url()} ${r.request().postData()?.slice(0, 80) ?? ""} ${body.slice(0, 200)}`);
  });

  await t.test("opening appUrl signs in as the dev user without typing", async () => {
    await page.goto(info.appUrl);
    await page.locator("[data-testid=dropzone]").waitFor({ timeout: 30_000 });
    assert.equal(new URL(page.url()).pathname, "/app/");
    assert.ok(!page.url().includes("code="), "the authorization code is gone from the address bar");
    assert.equal(await page.locator(".who").textContent(), "dev");
    const stored = await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith("oidc.user")).length);
    assert.equal(stored, 1, "the session is in this tab's session storage");
  });

  await t.test("the trip list has no serious or critical accessibility violations", async () => {
    assert.deepEqual(await axeSerious(page), []);
    await page.screenshot({ path: join(shots, "list-1280.png"), fullPage: true });

  });

  let tripId = "";
  let stages = [];
  await t.test("a dropped GPX file shows the progress, then one day row per stage and one line per day", async () => {
    // Record every state the progress panel shows while the trip computes.
    await page.evaluate(() => {
      globalThis.seenProgress = [];
      new MutationObserver(() => {
        const p = document.querySelector("[data-testid=progress]");
        if (p) globalThis.seenProgress.push(p.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const bytes = readFileSync(fixture).toString("base64");
    const dt = await page.evaluateHandle((b64) => {
      const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const d = new DataTransfer();
      d.items.add(new File([bin], "oslo-trondheim.gpx", { type: "application/gpx+xml" }));
      return d;
    }, bytes);
    await page.dispatchEvent("[data-testid=dropzone]", "drop", { dataTransfer: dt });
    await page.waitForURL(/\/app\/trips\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    tripId = page.url().split("/").pop();
    await page.locator("[data-testid=day-row]").first().waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(() => globalThis.seenProgress);
    assert.ok(seen.length > 0, "the progress panel showed while the trip computed");
    t.diagnostic(`progress seen: ${[...new Set(seen)].slice(0, 4).join(" | ")}`);

    // Wait for the computation to settle, then compare with the API.
    await page.waitForFunction(() => !document.querySelector("[data-testid=progress]"), null, { timeout: 60_000 });
    stages = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip.stages;
    assert.ok(stages.length >= 7, `a 627 km trip at 80 km a day has at least 7 days, got ${stages.length}`);
    await page.waitForFunction((n) => document.querySelectorAll("path.day-line").length === n, stages.length, { timeout: 30_000 });
    assert.equal(await page.locator("[data-testid=day-row]").count(), stages.length, "one row per stage");
    for (let i = 0; i < stages.length; i++) {
      assert.equal(await page.locator(`[data-testid=day-row][data-stage-index="${i}"]`).count(), 1);
      assert.ok(Math.abs((await dayKm(page, i)) - stages[i].distanceM / 1000) < 0.06, `day ${i + 1} km`);
    }
    const colours = await page.$$eval("path.day-line", (ps) => ps.map((p) => p.getAttribute("stroke")));
    assert.equal(new Set(colours).size, Math.min(stages.length, 10), "one colour per day");
    assert.equal(await page.locator("[data-testid=map-note]").count(), 1, "no tiles: the page says the route is on a plain background");
    assert.ok((await page.locator("[data-testid=day-row] .day-route").first().textContent()).startsWith("Oslo"), "days are named");
  });

  await t.test("the profile joins the days: each day's line starts where the day before ends", async () => {
    // A day's line drawn from another point than the previous day's last
    // would show as a straight jump at the boundary.
    const ends = await page.$$eval("[data-testid=profile] g.day", (gs) => gs.map((g) => {
      const xy = [...g.querySelectorAll("path")[1].getAttribute("d").matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
      return { first: xy[0], last: xy[xy.length - 1], n: xy.length };
    }));
    assert.equal(ends.length, stages.length, "one profile line per riding day");
    for (let i = 1; i < ends.length; i++) {
      const [a, b] = [ends[i - 1].last, ends[i].first];
      assert.ok(Math.abs(a[0] - b[0]) < 0.5 && Math.abs(a[1] - b[1]) < 1.5, `day ${i + 1} starts where day ${i} ends on the profile: ${a} → ${b}`);
    }
  });

  await t.test("a day's weather and resupply points read as a rider reads them, and the points are on the map", async () => {
    // roadbook dev runs with every data provider off, so its days carry no
    // weather or resupply: this tab adds them to day 1 of the real
    // ListStages answer, as the analysis stores them, and reads the page.
    const tab = await context.newPage();
    await tab.route("**/roadbook.v1.TripService/ListStages", async (route) => {
      const res = await route.fetch();
      const msg = pb.fromBinary(pb.ListStagesResponseSchema, new Uint8Array(await res.body()));
      const st = msg.stages[0];
      if (st && st.index === 0) {
        const at = (f) => ({ lat: st.start.lat + f * (st.end.lat - st.start.lat), lon: st.start.lon + f * (st.end.lon - st.start.lon) });
        const point = (kind, name, km, open, minute) => pb.create(pb.ResupplyPointSchema, {
          kind, name, location: at((km * 1000) / st.distanceM), atM: km * 1000, offRouteM: 120, openAtPassage: open, passageMinuteOfDay: minute,
        });
        st.weather = pb.create(pb.DayWeatherSchema, { source: pb.WeatherSource.FORECAST, location: at(0.5), temperatureMinC: 12, temperatureMaxC: 21,
          precipitationMm: 2.4, precipitationProbabilityPct: 60, windMaxKmh: 25, windFromDeg: 10, headwindKmh: 8.3, humidityPct: 70, comfort: 72 });
        st.resupply = pb.create(pb.StageResupplySchema, {
          segmentM: 20000,
          points: [
            point(pb.ResupplyKind.WATER, "", 14.2, 0, 555),
            point(pb.ResupplyKind.SHOP, "Kiwi Hurdal", 30.5, 1, 605),
            point(pb.ResupplyKind.FOOD, "Kafe Sentrum", 35, 2, 620),
            point(pb.ResupplyKind.WATER, "Spring", 52, 0, 690),
          ],
          omitted: [
            pb.create(pb.ResupplyOmittedSchema, { fromM: 40000, toM: 60000, kind: pb.ResupplyKind.WATER, count: 1 }),
            pb.create(pb.ResupplyOmittedSchema, { fromM: 20000, toM: 40000, kind: pb.ResupplyKind.SHOP, count: 1 }),
          ],
        });
      }
      await route.fulfill({ response: res, body: Buffer.from(pb.toBinary(pb.ListStagesResponseSchema, msg)) });
    });
    await tab.setViewportSize({ width: 1280, height: 900 });
    await tab.goto(`${info.appUrl}trips/${tripId}`);
    const row = tab.locator('[data-testid=day-row][data-stage-index="0"]');
    await row.locator("[data-testid=day-weather-line]").waitFor({ timeout: 30_000 });
    assert.equal(await row.locator("[data-testid=day-weather-line]").textContent(), "12–21 °C · 2 mm rain (60 % chance) · headwind 8 km/h");
    assert.equal(await row.locator("[data-testid=day-resupply-line]").textContent(), "Water: 3 · Shops: 2 · Cafés: 1 · first water at km 14.2");
    assert.equal(await tab.locator('[data-testid=day-row][data-stage-index="1"] [data-testid=day-weather-line]').count(), 0, "a day without weather shows none");
    await row.locator(".day-head").click();
    const items = row.locator("[data-testid=day-resupply] li");
    assert.equal(await items.count(), 4, "the points, in route order");
    assert.match(await items.nth(0).textContent(), /^≈ km 14\.2 · water \(120 m off the route\)$/);
    assert.match(await items.nth(1).textContent(), /km 30\.5 · Kiwi Hurdal \(food shop, 120 m off the route\) · open when you pass \(10:05\)/);
    assert.match(await items.nth(2).textContent(), /Kafe Sentrum .* · closed when you pass \(10:20\)/);
    assert.match(await row.locator("[data-testid=day-weather]").textContent(), /wind up to 25 km\/h · comfort 72\/100.*Forecast for the date/);
    await tab.waitForFunction(() => document.querySelectorAll("[data-testid=map] .pin.resupply").length === 4, null, { timeout: 10_000 });
    assert.equal(await tab.locator("[data-testid=map] .pin.resupply [aria-label='Kiwi Hurdal']").count(), 1, "each point is on the map with its name");
    assert.deepEqual(await axeSerious(tab), []);
    await tab.evaluate(() => scrollTo(0, 0));
    await tab.screenshot({ path: join(shots, "day-outlook-1280.png") });
    // Day 2 has what roadbook dev's analysis says: no provider is on.
    const day2 = tab.locator('[data-testid=day-row][data-stage-index="1"]');
    await day2.locator(".day-head").click();
    await day2.locator("[data-testid=day-missing]").waitFor({ timeout: 30_000 });
    const missing = await day2.locator("[data-testid=day-missing]").textContent();
    assert.match(missing, /No weather: this server has no weather provider switched on\./);
    assert.match(missing, /No water or food points: this server has no map data provider switched on\./);
    await tab.setViewportSize({ width: 390, height: 844 });
    await tab.waitForTimeout(500);
    await row.scrollIntoViewIfNeeded();
    await tab.screenshot({ path: join(shots, "day-outlook-390.png") });
    await tab.close();
  });

  let v0 = 0;
  let day2 = 0;
  await t.test("cutting day 2 on the profile moves the version and shortens the day", async () => {
    v0 = await version(page);
    day2 = await dayKm(page, 1);
    const box = await page.locator("[data-testid=profile] g.day.d1").boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.7);
    await page.locator("[data-testid=map] path.hover-dot").waitFor({ timeout: 5_000 }); // the map shows the hovered point
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.7);
    await page.locator("[data-testid=map] path.picked-dot").waitFor({ timeout: 5_000 });
    const cut = page.locator("[data-testid=cut-here]");
    await cut.waitFor();
    assert.match(await cut.textContent(), /End Day 2 here/);
    await cut.click();
    await page.waitForFunction((v) => Number(document.querySelector("[data-testid=trip-version]").textContent) === v + 1, v0, { timeout: 30_000 });
    const after = await dayKm(page, 1);
    assert.ok(after > day2 * 0.3 && after < day2 * 0.7, `day 2 cut near its middle: ${day2} → ${after} km`);
    const trip = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip;
    assert.equal(Number(trip.version), v0 + 1);
    assert.ok(Math.abs(trip.stages[1].distanceM / 1000 - after) < 0.06, "the page shows the API's new length");
  });

  await t.test("undo puts day 2 back as a new version", async () => {
    await page.locator("[data-testid=undo]").click();
    await page.waitForFunction((v) => Number(document.querySelector("[data-testid=trip-version]").textContent) === v + 2, v0, { timeout: 30_000 });
    await page.waitForFunction(([i, km]) => {
      const el = document.querySelector(`[data-testid=day-row][data-stage-index="${i}"] [data-testid=day-km]`);
      return el && Math.abs(parseFloat(el.textContent.replace(",", ".")) - km) < 0.06;
    }, [1, day2], { timeout: 30_000 });
    assert.equal(await page.locator("[data-testid=day-row]").count(), stages.length);
    await page.waitForFunction(() => /Undone/.test(document.querySelector("[data-testid=notice]").textContent), null, { timeout: 10_000 });
    assert.equal(await page.locator("[data-testid=redo]").isEnabled(), true, "the undone edit can be redone");
  });

  await t.test("a rest day after day 1 adds a row", async () => {
    await page.locator('[data-testid=day-row][data-stage-index="0"] .day-head').click();
    await page.locator('[data-testid=day-row][data-stage-index="0"] [data-testid=add-rest-day]').click();
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=day-row]").length === n, stages.length + 1, { timeout: 30_000 });
    assert.equal(await page.locator('[data-testid=day-row][data-stage-index="1"].rest').count(), 1, "day 2 is the rest day");
    assert.equal(await version(page), v0 + 3);
  });

  await t.test("a rest day's panel offers its text and no GPX or FIT, and the text is that day alone", async () => {
    await page.locator('[data-testid=day-row][data-stage-index="1"] .day-head').click();
    const rest = page.locator('[data-testid=day-row][data-stage-index="1"]');
    await rest.locator("[data-testid=export-day-text]").waitFor({ timeout: 10_000 });
    assert.equal(await rest.locator("[data-testid=export-day-gpx], [data-testid=export-day-fit]").count(), 0, "no track to download");
    const [dl] = await Promise.all([page.waitForEvent("download"), rest.locator("[data-testid=export-day-text]").click()]);
    assert.equal(dl.suggestedFilename(), "roadbook-stage-2.txt");
    const text = readFileSync(await dl.path(), "utf8");
    assert.match(text, / · Day 2 of \d+\n/);
    assert.match(text, /\nDay 2: rest day, /);
    const dayOneEnd = (await page.locator('[data-testid=day-row][data-stage-index="0"] [data-testid=day-route]').textContent()).split(" → ")[1];
    assert.ok(dayOneEnd, "day 1 names where it ends");
    assert.equal((await rest.locator("[data-testid=day-route]").textContent()).trim(), `Staying at ${dayOneEnd}`, "the rest day says where the rider stays");
    assert.ok(text.includes(`\nDay 2: rest day, `) && text.includes(`\n  ${dayOneEnd}\n`), "its text names the place too");
    assert.doesNotMatch(text, /Day 3:|Budget:/, "the other days and the trip's budget are not in it");
    await rest.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, "rest-day-1280.png") });
    const ride = page.locator('[data-testid=day-row][data-stage-index="0"]');
    await ride.locator(".day-head").click();
    assert.equal(await ride.locator("[data-testid=export-day-gpx]").count(), 1, "a riding day still offers its GPX");
  });

  await t.test("the trip page has no serious or critical accessibility violations", async () => {
    assert.deepEqual(await axeSerious(page), []);
  });

  await t.test("screenshots at 1280 and 390 px", async () => {
    await page.locator('[data-testid=day-row][data-stage-index="2"] .day-head').click();
    await page.waitForTimeout(500);
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(shots, "trip-1280.png") });
    await page.screenshot({ path: join(shots, "trip-1280-full.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(800);
    await page.evaluate(() => scrollTo(0, 0));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `nothing wider than the phone (${overflow} px too wide)`);
    await page.screenshot({ path: join(shots, "trip-390.png"), fullPage: true });
    await page.screenshot({ path: join(shots, "trip-390-top.png") });
    await page.setViewportSize({ width: 1280, height: 900 });
    t.diagnostic(`screenshots in ${shots}`);
  });

  await t.test("the whole trip downloads as GPX", async () => {
    await page.locator("[data-testid=open-export]").click();
    const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=export-gpx]").click()]);
    assert.match(dl.suggestedFilename(), /\.gpx$/);
    const gpx = readFileSync(await dl.path(), "utf8");
    assert.match(gpx, /<gpx[\s>]/);
    assert.match(gpx, /<trkpt /);
  });

  await t.test("sharing gives a link whose page shows the trip", async () => {
    await page.locator("[data-testid=share]").click();
    const input = page.locator("[data-testid=share-url]");
    await input.waitFor({ timeout: 15_000 });
    const url = await input.inputValue();
    assert.match(url, /\/s\/[A-Za-z0-9_-]{16}$/, "a new link carries a 96-bit share code (16 characters)");
    const share = await context.newPage();
    const resp = await share.goto(url);
    assert.equal(resp.status(), 200);
    const title = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip.title;
    assert.ok((await share.content()).includes(title), "the share page names the trip");
    await share.screenshot({ path: join(shots, "share-page.png") });
    await share.close();
    await page.keyboard.press("Escape");
  });

  await t.test("a write on a stale version reloads the trip and says what changed", async () => {
    // A second tab without the live stream, so its next write is stale.
    const tab = await context.newPage();
    await tab.route("**/roadbook.v1.WatchService/WatchTrip", (r) => r.abort());
    await tab.goto(`${info.appUrl}trips/${tripId}`);
    await tab.locator("[data-testid=day-row]").first().waitFor({ timeout: 30_000 });
    assert.equal(new URL(tab.url()).pathname, `/app/trips/${tripId}`, "sign-in returns to the page asked for");
    const v = await version(tab);
    await api("roadbook.v1.TripService/UpdateTripSettings", { tripId, version: String(v), settings: {}, title: "Renamed by an agent" });
    await tab.locator('[data-testid=day-row][data-stage-index="3"] .day-head').click();
    await tab.locator('[data-testid=day-row][data-stage-index="3"] [data-testid=add-rest-day]').click();
    await tab.waitForFunction(() => /changed elsewhere/.test(document.querySelector("[data-testid=notice]").textContent), null, { timeout: 30_000 });
    const notice = await tab.locator("[data-testid=notice]").textContent();
    assert.match(notice, /reloaded/);
    assert.match(notice, /Renamed by an agent/);
    assert.equal(await tab.locator("h1.trip-title").textContent(), "Renamed by an agent");
    assert.equal(await version(tab), v + 1, "the refused write wrote nothing");
    await tab.close();
    // The first tab follows the live stream and says so too.
    await page.waitForFunction(() => /changed elsewhere/.test(document.querySelector("[data-testid=notice]").textContent), null, { timeout: 30_000 });
    assert.equal(await page.locator("h1.trip-title").textContent(), "Renamed by an agent");
  });

  await t.test("with map tiles that cannot be loaded the route is still drawn and the page says so", async () => {
    const tab = await context.newPage();
    await tab.route("**/app/config.json", async (route) => {
      const res = await route.fetch();
      const cfg = await res.json();
      cfg.tiles = { url: "http://127.0.0.1:9/{z}/{x}/{y}.png", attribution: "test tiles", maxZoom: 18 }; // nothing listens on port 9
      await route.fulfill({ response: res, json: cfg });
    });
    await tab.goto(`${info.appUrl}trips/${tripId}`);
    await tab.locator("[data-testid=day-row]").first().waitFor({ timeout: 30_000 });
    await tab.locator("[data-testid=map-note]").waitFor({ timeout: 30_000 });
    assert.match(await tab.locator("[data-testid=map-note]").textContent(), /could not be loaded/);
    // The lines arrive after the day list (one geometry read per day): wait for them.
    await tab.locator("path.day-line").first().waitFor({ timeout: 30_000 });
    assert.ok((await tab.locator("path.day-line").count()) > 0, "the route is drawn");
    await tab.close();
  });

  await t.test("the page speaks French", async () => {
    await page.locator(".lang select").selectOption("fr");
    await page.waitForFunction(() => document.querySelector("[data-testid=day-row] .day-title")?.textContent.startsWith("Jour 1"));
    assert.equal(await page.locator("[data-testid=undo]").textContent(), "↶ Annuler");
    await page.locator("[data-testid=open-settings]").click();
    // The dialog is rendered before showModal opens it (an effect): an
    // Escape pressed in between closes nothing, so wait until it is shown.
    await page.locator("[data-testid=settings]").waitFor({ state: "visible" });
    assert.equal(await page.locator("[data-testid=presets] legend").textContent(), "Cycliste");
    assert.equal(await page.locator("[data-testid=presets] label", { has: page.locator("[data-testid=preset-beginner]") }).textContent(), "Débutant");
    await page.keyboard.press("Escape");
    await page.locator("[data-testid=settings]").waitFor({ state: "detached" });
    await page.locator(".lang select").selectOption("en");
  });

  await t.test("move a day, end a day at a searched place, add a waypoint, merge with the impact shown, change settings", async () => {
    const row = (i) => page.locator(`[data-testid=day-row][data-stage-index="${i}"]`);
    const open = page.locator(".day-row.open");
    const waitVersion = (v) => page.waitForFunction((x) => Number(document.querySelector("[data-testid=trip-version]").textContent) === x, v, { timeout: 30_000 });
    let v = await version(page);
    if ((await open.count()) === 0 || (await open.getAttribute("data-stage-index")) !== "4") await row(4).locator(".day-head").click();
    const km4 = await dayKm(page, 4);
    await open.getByRole("button", { name: /Move later/ }).click();
    await waitVersion(++v);
    assert.ok(Math.abs((await dayKm(page, 5)) - km4) < 0.06, "the day moved one place later");
    await page.waitForFunction(() => document.querySelector(".day-row.open")?.getAttribute("data-stage-index") === "5", null, { timeout: 10_000 }); // and stays selected

    await open.locator("input[placeholder='Place name']").fill("Trondheim");
    await open.getByRole("button", { name: "Search", exact: true }).click();
    await open.locator(".places li").first().waitFor({ timeout: 15_000 });
    await open.locator(".places li").first().getByRole("button", { name: "End here" }).click();
    await waitVersion(++v);

    await open.locator(".wp-form input").first().fill("Spring");
    await open.locator(".wp-form input").nth(1).fill("water");
    await open.getByRole("button", { name: "Add waypoint" }).click();
    await open.locator(".waypoints li", { hasText: "Spring" }).waitFor({ timeout: 15_000 });
    assert.equal(await version(page), v, "a waypoint does not move the version");
    assert.ok((await page.locator("[data-testid=map] .pin.wp").count()) >= 1, "the waypoint is on the map");

    const rows = await page.locator("[data-testid=day-row]").count();
    await open.getByRole("button", { name: /Merge with the next day|Delete this day/ }).click();
    const dialog = page.locator("[data-testid=confirm]");
    await dialog.waitFor();
    assert.match(await dialog.locator("[data-testid=impact]").textContent(), /goes from \d+ to \d+ stages/);
    await dialog.locator("[data-testid=confirm-ok]").click();
    await waitVersion(++v);
    assert.equal(await page.locator("[data-testid=day-row]").count(), rows - 1);

    await page.locator("[data-testid=open-settings]").click();
    await page.locator("[data-testid=settings] label", { hasText: "Most km in a day" }).locator("input").fill("100");
    await page.locator("[data-testid=settings-apply]").click();
    const confirm = page.locator("[data-testid=confirm]");
    await confirm.waitFor();
    assert.match(await confirm.locator("[data-testid=impact]").textContent(), /Every stage will be recomputed/);
    await confirm.locator("[data-testid=confirm-ok]").click();
    await waitVersion(++v);
    // A re-pacing starts a new undo history (once the write's answer is in).
    await page.waitForFunction(() => document.querySelector("[data-testid=undo]").disabled, null, { timeout: 10_000 });
    const trip = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip;
    assert.equal(trip.settings.maxDistancePerDayKm, 100);
  });

  // What the settings steps below share: the trip's version shown, the API
  // polled until the days are cut, the days the page shows, the dialog.
  const waitVersion = (v) => page.waitForFunction((x) => Number(document.querySelector("[data-testid=trip-version]").textContent) === x, v, { timeout: 30_000 });
  // settled polls the API until the days are cut for the settings check accepts.
  const settled = async (check) => {
    for (let i = 0; i < 300; i++) {
      const trip = (await api("roadbook.v1.TripService/GetTrip", { tripId })).trip;
      if (trip.progress?.stages?.state === "COMPUTATION_STATE_DONE" && check(trip)) return trip;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the days were not re-cut within 30 s");
  };
  const showsDays = async (trip) => {
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=day-row]").length === n, trip.stages.length, { timeout: 30_000 });
    await page.waitForFunction((kms) => kms.every((km, i) => {
      const el = document.querySelector(`[data-testid=day-row][data-stage-index="${i}"] [data-testid=day-km]`);
      return el && Math.abs(parseFloat(el.textContent.replace(",", ".")) - km) < 0.06;
    }), trip.stages.map((st) => st.distanceM / 1000), { timeout: 30_000 });
  };
  const field = (name) => page.locator(`[data-testid=settings] input[data-field=${name}]`);
  const dialog = page.locator("[data-testid=settings]");
  const confirmed = async () => {
    await dialog.locator("[data-testid=settings-apply]").click();
    const confirm = page.locator("[data-testid=confirm]");
    await confirm.waitFor();
    assert.match(await confirm.locator("[data-testid=impact]").textContent(), /Every stage will be recomputed/);
    await confirm.locator("[data-testid=confirm-ok]").click();
  };

  await t.test("choosing the beginner preset fills its values and re-cuts shorter days; editing one value makes the trip custom", async () => {
    // The 100 km cap set above made the trip custom.
    let trip = await settled((tr) => tr.settings.maxDistancePerDayKm === 100);
    await showsDays(trip);
    const before = trip.stages.length;
    let v = await version(page);
    await page.locator("[data-testid=open-settings]").click();
    assert.equal(await dialog.locator("[data-testid=preset-custom]").isChecked(), true, "a trip with its own values is custom");
    assert.equal(await dialog.locator("[data-testid=repace]").count(), 0, "days cut by the effort model have nothing to re-cut");
    // By keyboard: from custom, three presses of the left arrow run through
    // expert and intermediate to beginner; the API's values for the first
    // two are held back so they arrive after beginner's, and must not
    // overwrite them.
    let held = 0;
    const hold = async (route) => {
      if (held++ < 2) await new Promise((r) => setTimeout(r, 700));
      await route.continue();
    };
    await page.route("**/roadbook.v1.TripService/UpdateTripSettings", hold);
    await dialog.locator("[data-testid=preset-custom]").focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
    assert.equal(await dialog.locator("[data-testid=preset-beginner]").isChecked(), true, "the arrow keys choose a preset");
    await page.waitForFunction(() => document.querySelector("[data-testid=settings] input[data-field=maxDistancePerDayKm]")?.value === "90", null, { timeout: 10_000 });
    await page.waitForTimeout(1200); // the held answers are in
    await page.unroute("**/roadbook.v1.TripService/UpdateTripSettings", hold);
    assert.equal(held, 3, "one validate-only call per preset passed through");
    assert.equal(await field("maxDistancePerDayKm").inputValue(), "90", "the beginner's cap, from the API");
    assert.equal(await field("dailyRidingHours").inputValue(), "4.5", "the preset's daily hours, from the API");
    assert.equal(await field("averageSpeedKmPerH").inputValue(), "14", "the preset's flat speed, from the API");
    assert.deepEqual(await axeSerious(page), [], "the settings dialog is accessible");
    await page.screenshot({ path: join(shots, "settings-1280.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(shots, "settings-390.png") });
    await page.setViewportSize({ width: 1280, height: 900 });
    await confirmed();
    await waitVersion(++v);
    trip = await settled((tr) => tr.settings.preset === "RIDER_PRESET_BEGINNER");
    assert.ok(trip.stages.length > before, `a beginner rides more, shorter days: ${before} → ${trip.stages.length}`);
    for (const st of trip.stages) assert.ok(st.distanceM <= 90_000 + 1, `day ${st.index + 1} within the beginner's 90 km: ${st.distanceM} m`);
    await showsDays(trip);
    t.diagnostic(`beginner preset: ${before} → ${trip.stages.length} days, ${trip.stages.map((st) => (st.distanceM / 1000).toFixed(1)).join(", ")} km`);

    await page.locator("[data-testid=open-settings]").click();
    assert.equal(await dialog.locator("[data-testid=preset-beginner]").isChecked(), true, "the trip shows its preset");
    await field("dailyRidingHours").fill("5");
    assert.equal(await dialog.locator("[data-testid=preset-custom]").isChecked(), true, "editing one value makes it custom");
    assert.equal(await field("maxDistancePerDayKm").inputValue(), "90", "the other values stay");
    await confirmed();
    await waitVersion(++v);
    trip = await settled((tr) => tr.settings.dailyRidingHours === 5);
    assert.equal(trip.settings.preset, "RIDER_PRESET_CUSTOM");
    assert.equal(trip.settings.maxDistancePerDayKm, 90, "the beginner's cap kept");
    await showsDays(trip);
  });

  await t.test("a read the live stream overtakes does not put the trip back: an agent's write lands while the page reads after its own", async () => {
    // A settings write answers without the trip, so the page reads it
    // (GetTrip) after; the live stream can bring a newer state before that
    // read's answer comes (the re-cut finishing, another client's write),
    // and the stream, having sent it, sends nothing more. Here the read is
    // answered as the server read it, but only once an agent has written
    // (other daily hours) and the page shows the agent's version and days.
    let v = await version(page);
    let held = null;
    await page.route("**/roadbook.v1.TripService/GetTrip", async (route) => {
      const res = await route.fetch();
      held = pb.fromBinary(pb.GetTripResponseSchema, new Uint8Array(await res.body())).trip;
      await api("roadbook.v1.TripService/UpdateTripSettings", { tripId, version: String(held.version), settings: { dailyRidingHours: 6 } });
      await waitVersion(Number(held.version) + 1);
      await showsDays(await settled((tr) => tr.settings.dailyRidingHours === 6));
      await route.fulfill({ response: res });
    }, { times: 1 });
    const answered = page.waitForEvent("requestfinished", { predicate: (r) => r.url().endsWith("/roadbook.v1.TripService/GetTrip"), timeout: 60_000 });
    await page.locator("[data-testid=open-settings]").click();
    await field("dailyRidingHours").fill("5.5");
    await confirmed();
    await answered;
    await page.waitForTimeout(300); // the page has read the answer
    assert.equal(held?.version, BigInt(v + 1), "the held answer is the page's read after its write");
    assert.equal(held.settings.dailyRidingHours, 5.5);
    assert.equal(await version(page), v + 2, "the page shows the agent's version");
    const trip = await settled((tr) => tr.settings.dailyRidingHours === 6);
    await showsDays(trip);
    const notice = await page.locator("[data-testid=notice]").textContent();
    assert.match(notice, new RegExp(`changed elsewhere \\(version ${v + 1} → ${v + 2}\\)`), "the page says another client wrote after it");
    assert.match(notice, /Riding hours a day: 5\.5 → 6\./, "and what it changed, against the state the page's own write made");
    await page.screenshot({ path: join(shots, "changed-elsewhere-1280.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(shots, "changed-elsewhere-390.png") });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await t.test("a trip paced by the old engine offers to re-cut its days, through UpdateTripSettings with repace", async () => {
    // Every trip roadbook dev makes is paced by the effort model: this tab
    // reads the trip as engine 1 (GetTrip's answer rewritten; no live
    // stream, so GetTrip is what it reads) and the API, which knows better,
    // refuses the re-pace it sends.
    const tab = await context.newPage();
    await tab.route("**/roadbook.v1.WatchService/WatchTrip", (r) => r.abort());
    await tab.route("**/roadbook.v1.TripService/GetTrip", async (route) => {
      const res = await route.fetch();
      const msg = pb.fromBinary(pb.GetTripResponseSchema, new Uint8Array(await res.body()));
      if (msg.trip?.settings) msg.trip.settings.pacingEngine = 1;
      await route.fulfill({ response: res, body: Buffer.from(pb.toBinary(pb.GetTripResponseSchema, msg)) });
    });
    await tab.goto(`${info.appUrl}trips/${tripId}`);
    await tab.locator("[data-testid=day-row]").first().waitFor({ timeout: 30_000 });
    await tab.locator("[data-testid=open-settings]").click();
    const repace = tab.locator("[data-testid=settings] [data-testid=repace]");
    await repace.waitFor();
    assert.match(await tab.locator("#repace-hint").textContent(), /old distance-only engine/);
    await repace.click();
    await tab.locator("p.error").waitFor({ timeout: 15_000 });
    assert.match(await tab.locator("p.error").textContent(), /already cut by the current pacing engine/);
    await tab.close();
  });

  await t.test("the list shows the trip; no serious or critical accessibility violations there either", async () => {
    await page.locator("button.back").click();
    await page.locator("[data-testid=trip-card]").first().waitFor();
    assert.equal(await page.locator("[data-testid=trip-card] .trip-title").first().textContent(), "Renamed by an agent");
    assert.deepEqual(await axeSerious(page), []);
    await page.screenshot({ path: join(shots, "list-1280.png"), fullPage: true });

    // Duplicate, then delete the copy: the impact is shown before anything goes.
    await page.locator("[data-testid=trip-card] button", { hasText: "Duplicate" }).first().click();
    await page.waitForURL(/\/app\/trips\/[0-9a-f-]{36}$/);
    assert.notEqual(page.url().split("/").pop(), tripId, "the copy is a new trip");
    await page.locator("[data-testid=day-row]").first().waitFor({ timeout: 30_000 });
    await page.locator("button.back").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=trip-card]").length === 2);
    const copy = page.locator("[data-testid=trip-card]", { hasText: "(copy)" });
    await copy.locator("button.danger").click();
    const dialog = page.locator("[data-testid=confirm]");
    await dialog.waitFor();
    assert.match(await dialog.locator("[data-testid=impact]").textContent(), /will be deleted/);
    await dialog.locator("[data-testid=confirm-ok]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=trip-card]").length === 1);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(shots, "list-390.png"), fullPage: true });
  });

  await t.test("no script error on the way", () => {
    assert.deepEqual(problems, []);
  });
});
