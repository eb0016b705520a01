// Route geometry on the client: Google encoded polylines (what
// GetRouteGeometry answers) and distances along them.

export type LatLon = [number, number];

export function decodePolyline(s: string, precision = 5): LatLon[] {
  const factor = 10 ** precision;
  const out: LatLon[] = [];
  let lat = 0;
  let lon = 0;
  let i = 0;
  while (i < s.length) {
    for (const which of [0, 1]) {
      let shift = 0;
      let result = 0;
      let b: number;
      do {
        b = s.charCodeAt(i++) - 63;
        result |= (b & 0x1f) << shift;
        shift += 5;
      } while (b >= 0x20 && i < s.length);
      const d = result & 1 ? ~(result >> 1) : result >> 1;
      if (which === 0) lat += d;
      else lon += d;
    }
    out.push([lat / factor, lon / factor]);
  }
  return out;
}

// haversine is the great-circle distance in metres.
export function haversine(a: LatLon, b: LatLon): number {
  const r = 6371008.8;
  const rad = Math.PI / 180;
  const dLat = (b[0] - a[0]) * rad;
  const dLon = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * r * Math.asin(Math.min(1, Math.sqrt(h)));
}

// cumulative is the distance from the first point to each point, in metres.
export function cumulative(pts: LatLon[]): number[] {
  const out = [0];
  for (let i = 1; i < pts.length; i++) out.push(out[i - 1] + haversine(pts[i - 1], pts[i]));
  return out;
}

// DAY_COLOURS are distinct on a plain background and on OSM tiles, and
// readable as text on white (WCAG AA for the day numbers).
export const DAY_COLOURS = ["#c0392b", "#1f6fb2", "#1e8449", "#8e44ad", "#b9770e", "#117a8b", "#a93264", "#4d5656", "#6c3483", "#2e7d32"];

export function dayColour(i: number): string {
  return DAY_COLOURS[i % DAY_COLOURS.length];
}
