// What the trip page knows of a trip besides its digest: each day's line
// and profile (GetRouteGeometry) laid end to end along the trip, and the
// points a rider hovers or picks on the map or the profile.
import { cumulative, type LatLon } from "../geo";

export interface DayGeom {
  index: number;
  rest: boolean;
  pts: LatLon[];
  ele: number[];
  // cum is metres from the day's start to each point, scaled so the last
  // equals the day's length as the API measures it.
  cum: number[];
  // start is metres along the trip where the day starts.
  start: number;
  distance: number;
}

// RoutePoint is one point of the trip as the map and the profile share it.
export interface RoutePoint {
  day: number;
  lat: number;
  lon: number;
  ele?: number;
  dayM: number;
  tripM: number;
}

export function dayGeom(index: number, rest: boolean, pts: LatLon[], ele: number[], distance: number, start: number): DayGeom {
  const raw = cumulative(pts);
  const total = raw[raw.length - 1] || 1;
  const cum = raw.map((d) => (d / total) * distance);
  return { index, rest, pts, ele, cum, start, distance };
}

// pointAt is the point at metres m along the trip (clamped).
export function pointAt(geoms: DayGeom[], m: number): RoutePoint | null {
  const riding = geoms.filter((g) => !g.rest && g.pts.length > 1);
  if (riding.length === 0) return null;
  let g = riding[riding.length - 1];
  for (const c of riding) {
    if (m <= c.start + c.distance) {
      g = c;
      break;
    }
  }
  const d = Math.max(0, Math.min(g.distance, m - g.start));
  let i = 1;
  while (i < g.cum.length - 1 && g.cum[i] < d) i++;
  const span = g.cum[i] - g.cum[i - 1] || 1;
  const f = Math.max(0, Math.min(1, (d - g.cum[i - 1]) / span));
  const [a, b] = [g.pts[i - 1], g.pts[i]];
  const ele = g.ele.length === g.pts.length ? g.ele[i - 1] + f * (g.ele[i] - g.ele[i - 1]) : undefined;
  return { day: g.index, lat: a[0] + f * (b[0] - a[0]), lon: a[1] + f * (b[1] - a[1]), ele, dayM: d, tripM: g.start + d };
}

// nearest is the route point closest to (lat, lon): a click on the map.
export function nearest(geoms: DayGeom[], lat: number, lon: number): RoutePoint | null {
  let best: RoutePoint | null = null;
  let bestD = Infinity;
  const k = Math.cos((lat * Math.PI) / 180);
  for (const g of geoms) {
    if (g.rest) continue;
    g.pts.forEach((p, i) => {
      const d = (p[0] - lat) ** 2 + ((p[1] - lon) * k) ** 2;
      if (d < bestD) {
        bestD = d;
        best = { day: g.index, lat: p[0], lon: p[1], ele: g.ele[i], dayM: g.cum[i], tripM: g.start + g.cum[i] };
      }
    });
  }
  return best;
}
