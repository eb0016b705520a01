// What a rider loads on a GPS unit, read by programs that did not write it:
// the FIT courses of a trip made by `roadbook dev`, decoded by Garmin's own
// FIT SDK (test/fitcheck.ts), and its GPX read with @xmldom/xmldom
// (docs/EXPORTS.md). `roadbook dev` runs here without data providers, so the
// files carry the days, their ends and summits; resupply points need the
// providers (testkit/stack TestRiderEndToEnd covers them with fakes).
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { DOMParser, type Element } from "@xmldom/xmldom";

import { ExportFormat, ExportService } from "../gen/roadbook/v1/export_pb.js";
import { ComputationState } from "../gen/roadbook/v1/progress_pb.js";
import { type TripDigest, TripStatus } from "../gen/roadbook/v1/trip_pb.js";
import { CreateTripFromUploadRequestSchema, TripService } from "../gen/roadbook/v1/trip_service_pb.js";
import { apiTransport, devInfo, fixture, fixtureName, sleep } from "./dev.ts";
import { checkCourse, maxCoursePoints } from "./fitcheck.ts";

const dev = devInfo();
const transport = apiTransport(dev);
const trips = createClient(TripService, transport);
const exporter = createClient(ExportService, transport);

// The symbol names Garmin units and BaseCamp draw that the GPX export uses.
const garminSymbols = new Set([
  "Drinking Water", "Shopping Center", "Restaurant", "Campground", "Lodging", "Summit",
  "First Aid", "Restroom", "Scenic Area", "Flag, Red", "Flag, Blue",
]);

test("a rider's trip exports as FIT courses Garmin's SDK reads and GPX with a track and an end per day", async (t) => {
  const created = await trips.createTripFromUpload(
    create(CreateTripFromUploadRequestSchema, {
      filename: fixtureName,
      contentType: "application/gpx+xml",
      content: fixture(),
      title: "Oslo → Trondheim (exports)",
      settings: { startDate: "2031-06-02" },
    }),
  );
  // Ready, labelled and analysed: the day-end names come from the labels.
  let digest: TripDigest | undefined;
  for (let i = 0; i < 240; i++) {
    const got = await trips.getTrip({ tripId: created.tripId });
    const p = got.trip?.progress;
    if (got.trip?.status === TripStatus.READY && p?.labels?.state === ComputationState.DONE && p?.analysis?.state === ComputationState.DONE) {
      digest = got.trip;
      break;
    }
    await sleep(250);
  }
  assert.ok(digest, "the trip is ready, labelled and analysed within 60 s");
  const trip: TripDigest = digest;
  const days = trip.stages.length;
  assert.ok(days >= 7, `627 km at the default pace: ${days} days`);

  await t.test("the whole-trip FIT is a course with a lap and a segment_end per day, as Garmin's SDK decodes it", async (st) => {
    const res = await exporter.exportTrip({ tripId: created.tripId, format: ExportFormat.FIT });
    assert.equal(res.file?.contentType, "application/vnd.ant.fit");
    const r = checkCourse(res.file!.content);
    assert.equal(r.laps, days);
    assert.equal(r.coursePoints.segmentEnd, days);
    assert.ok(r.points.length <= maxCoursePoints);
    assert.ok(Math.abs(r.distanceM - trip.distanceM) < trip.distanceM / 100, `the course is the route: ${r.distanceM} m`);
    const last = trip.stages[days - 1];
    const lastEnd = r.points.filter((p) => p.type === "segmentEnd").at(-1)!.name;
    assert.ok(`D${days} ${last.endLabel}`.startsWith(lastEnd), `the last day's end is named after where it ends: ${lastEnd}`);
    st.diagnostic(`whole-trip FIT: ${JSON.stringify(r.name)}, ${r.laps} laps, ${r.records} records, course points ${JSON.stringify(r.coursePoints)}`);
  });

  await t.test("a day's FIT is that day alone: one lap, its end, named after where it ends", async (st) => {
    const res = await exporter.exportTrip({ tripId: created.tripId, format: ExportFormat.FIT, stageIndex: 1 });
    const r = checkCourse(res.file!.content);
    assert.equal(r.laps, 1);
    assert.equal(r.coursePoints.segmentEnd, 1);
    assert.ok(`D2 ${trip.stages[1].endLabel}`.startsWith(r.name), `named after where day 2 ends: ${r.name}`);
    assert.ok(Math.abs(r.distanceM - trip.stages[1].distanceM) < 1000, `day 2's length: ${r.distanceM} m`);
    st.diagnostic(`day 2 FIT: ${JSON.stringify(r.name)}, ${r.records} records, course points ${JSON.stringify(r.coursePoints)}`);
  });

  await t.test("the whole-trip GPX has a dated track per day and a day-end waypoint per day, with Garmin symbols", async (st) => {
    const res = await exporter.exportTrip({ tripId: created.tripId, format: ExportFormat.GPX });
    const problems: string[] = [];
    const doc = new DOMParser({
      onError: (level, msg) => {
        if (level !== "warning") problems.push(`${level}: ${msg}`);
      },
    }).parseFromString(new TextDecoder().decode(res.file!.content), "application/xml");
    assert.deepEqual(problems, [], "well-formed XML");
    const text = (el: Element, name: string): string => el.getElementsByTagName(name)[0]?.textContent ?? "";
    const tracks = Array.from(doc.getElementsByTagName("trk"));
    assert.equal(tracks.length, days);
    for (const [i, trk] of tracks.entries()) {
      const s = trip.stages[i];
      assert.equal(text(trk, "name"), `Day ${i + 1} · ${s.startLabel} → ${s.endLabel} · ${s.date}`);
      assert.equal(text(trk, "number"), String(i + 1));
      assert.ok(trk.getElementsByTagName("trkpt").length > 100, `day ${i + 1} has its track points`);
    }
    const wpts = Array.from(doc.getElementsByTagName("wpt"));
    const ends = wpts.filter((w) => text(w, "type") === "day_end");
    assert.deepEqual(ends.map((w) => text(w, "name")), trip.stages.map((s, i) => `Day ${i + 1} end: ${s.endLabel}`));
    for (const w of wpts) {
      assert.ok(garminSymbols.has(text(w, "sym")), `a Garmin symbol: ${text(w, "sym")}`);
    }
    st.diagnostic(`whole-trip GPX: ${tracks.length} tracks, ${wpts.length} waypoints`);
  });
});
