// What Garmin's own FIT SDK (@garmin/fitsdk) reads in a Roadbook FIT course,
// and what a Garmin Edge needs of it (docs/EXPORTS.md): checked independently
// of the Go code that wrote it. exports.test.ts runs it on the courses of a
// `roadbook dev` trip; by hand, `node test/fitcheck.ts FILE.fit…` prints the
// report of each file and exits 1 on the first problem.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { Decoder, Profile, Stream } from "@garmin/fitsdk";

/** Course points a Roadbook FIT course carries at most (export.FITMaxCoursePoints). */
export const maxCoursePoints = 100;

/** FIT names Garmin units keep: 16 bytes, NUL included (export.FITNameMaxBytes). */
export const maxNameBytes = 15;

/** What a course holds, as Garmin's SDK decodes it. */
export interface CourseReport {
  name: string;
  laps: number;
  records: number;
  distanceM: number;
  /** Course points by FIT type name (segmentEnd, water, store, …). */
  coursePoints: Record<string, number>;
  /** The course points in file order: type, name, distance along the course. */
  points: { type: string; name: string; distanceM: number }[];
}

type Any = Record<string, unknown>;

const num = (v: unknown, what: string): number => {
  assert.equal(typeof v, "number", `${what} is a number: ${String(v)}`);
  return v as number;
};
const time = (v: unknown, what: string): number => {
  assert.ok(v instanceof Date, `${what} is a timestamp: ${String(v)}`);
  return v.getTime();
};

/**
 * checkCourse decodes a FIT file with Garmin's SDK and asserts what a unit
 * needs of a course: a valid file (header and CRC), file_id first with type
 * course, one course message (named within maxNameBytes, sport cycling), the
 * laps before the records, each with start and end positions and a distance,
 * end to end; records with positions and with distances and timestamps that
 * never go back; course points (at most maxCoursePoints) inside the records'
 * distance and time range, in order, named within maxNameBytes, with one
 * segment_end where each lap ends; a timer start before the records and a
 * timer stop last.
 */
export function checkCourse(bytes: Uint8Array): CourseReport {
  const stream = Stream.fromByteArray(Array.from(bytes));
  assert.ok(Decoder.isFIT(stream), "a FIT file");
  const decoder = new Decoder(stream);
  assert.ok(decoder.checkIntegrity(), "header and file CRC are valid");
  const order: number[] = [];
  const { messages, errors } = decoder.read({
    mesgListener: (n) => order.push(n),
    convertTypesToStrings: true,
    convertDateTimesToDates: true,
  });
  assert.deepEqual(errors, [], "Garmin's decoder reports no error");
  const M = Profile.MesgNum;

  assert.equal(order[0], M.FILE_ID, "file_id is the first message");
  const fileId = (messages.fileIdMesgs ?? []) as Any[];
  assert.equal(fileId.length, 1);
  assert.equal(fileId[0].type, "course", "file type course");

  const courses = (messages.courseMesgs ?? []) as Any[];
  assert.equal(courses.length, 1, "one course message");
  const name = String(courses[0].name ?? "");
  assert.ok(name.length > 0, "the course is named");
  assert.ok(Buffer.byteLength(name) <= maxNameBytes, `course name ${JSON.stringify(name)} within ${maxNameBytes} bytes`);
  assert.equal(courses[0].sport, "cycling");

  const firstRecord = order.indexOf(M.RECORD);
  assert.ok(firstRecord > 0, "records");
  assert.ok(order.lastIndexOf(M.LAP) < firstRecord, "the laps come before the records");
  const events = (messages.eventMesgs ?? []) as Any[];
  assert.equal(events.length, 2, "a timer start and a timer stop");
  assert.equal(events[0].event, "timer");
  assert.equal(events[0].eventType, "start");
  assert.ok(order.indexOf(M.EVENT) < firstRecord, "the timer starts before the first record");
  assert.equal(order[order.length - 1], M.EVENT, "the timer stop is the last message");
  assert.equal(events[1].eventType, "stopDisableAll");

  const records = (messages.recordMesgs ?? []) as Any[];
  assert.ok(records.length >= 2, "at least two records");
  let lastD = -1;
  let lastT = -Infinity;
  for (const [i, r] of records.entries()) {
    num(r.positionLat, `record ${i} latitude`);
    num(r.positionLong, `record ${i} longitude`);
    const d = num(r.distance, `record ${i} distance`);
    const t = time(r.timestamp, `record ${i} timestamp`);
    assert.ok(d >= lastD, `record ${i}: distance ${d} m after ${lastD} m`);
    assert.ok(t >= lastT, `record ${i}: its timestamp goes back`);
    lastD = d;
    lastT = t;
  }
  const first = records[0];
  const last = records[records.length - 1];
  const t0 = time(first.timestamp, "first record");
  const t1 = time(last.timestamp, "last record");
  const distanceM = num(last.distance, "last record distance");
  assert.equal(num(first.distance, "first record distance"), 0, "the course starts at distance 0");

  const laps = (messages.lapMesgs ?? []) as Any[];
  assert.ok(laps.length >= 1, "at least one lap");
  const lapEnds: number[] = [];
  let sum = 0;
  for (const [i, l] of laps.entries()) {
    for (const f of ["startPositionLat", "startPositionLong", "endPositionLat", "endPositionLong"]) {
      num(l[f], `lap ${i} ${f}`);
    }
    const d = num(l.totalDistance, `lap ${i} totalDistance`);
    assert.ok(d > 0, `lap ${i} has a distance`);
    sum += d;
    lapEnds.push(sum);
    if (i > 0) {
      assert.equal(l.startPositionLat, laps[i - 1].endPositionLat, `lap ${i} starts where lap ${i - 1} ends`);
      assert.equal(l.startPositionLong, laps[i - 1].endPositionLong, `lap ${i} starts where lap ${i - 1} ends`);
    }
  }
  assert.equal(laps[0].startPositionLat, first.positionLat, "the first lap starts at the first record");
  assert.equal(laps[laps.length - 1].endPositionLat, last.positionLat, "the last lap ends at the last record");
  assert.ok(Math.abs(sum - distanceM) <= laps.length * 0.02, `the laps add up to the course: ${sum} m of ${distanceM} m`);

  const cps = (messages.coursePointMesgs ?? []) as Any[];
  assert.ok(cps.length <= maxCoursePoints, `${cps.length} course points, at most ${maxCoursePoints}`);
  const byType: Record<string, number> = {};
  const points: CourseReport["points"] = [];
  let lastCp = -Infinity;
  for (const [i, c] of cps.entries()) {
    const type = c.type;
    assert.equal(typeof type, "string", `course point ${i} has a type of the profile: ${String(type)}`);
    const cpName = String(c.name ?? "");
    assert.ok(cpName.length > 0, `course point ${i} is named`);
    assert.ok(Buffer.byteLength(cpName) <= maxNameBytes, `course point name ${JSON.stringify(cpName)} within ${maxNameBytes} bytes`);
    const d = num(c.distance, `course point ${i} distance`);
    const t = time(c.timestamp, `course point ${i} timestamp`);
    assert.ok(d >= 0 && d <= distanceM + 0.01, `course point ${i} at ${d} m is on the course (0–${distanceM} m)`);
    assert.ok(t >= t0 && t <= t1, `course point ${i} is timed within the records`);
    assert.ok(d >= lastCp, `course point ${i} comes in course order`);
    num(c.positionLat, `course point ${i} latitude`);
    num(c.positionLong, `course point ${i} longitude`);
    lastCp = d;
    byType[type as string] = (byType[type as string] ?? 0) + 1;
    points.push({ type: type as string, name: cpName, distanceM: d });
  }
  const ends = points.filter((p) => p.type === "segmentEnd");
  assert.equal(ends.length, laps.length, "one segment_end course point per lap (day)");
  for (const [i, e] of ends.entries()) {
    assert.ok(Math.abs(e.distanceM - lapEnds[i]) <= (i + 1) * 0.02, `day ${i + 1} ends where its lap ends: ${e.distanceM} m, ${lapEnds[i]} m`);
  }
  return { name, laps: laps.length, records: records.length, distanceM, coursePoints: byType, points };
}

// By hand: node test/fitcheck.ts FILE.fit…
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const path of process.argv.slice(2)) {
    const r = checkCourse(readFileSync(path));
    console.log(
      `${path}: ${JSON.stringify(r.name)}, ${r.laps} laps, ${r.records} records, ${(r.distanceM / 1000).toFixed(1)} km, ` +
        `course points ${JSON.stringify(r.coursePoints)}`,
    );
  }
}
