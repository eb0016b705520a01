// The elevation profile of the whole trip, days laid end to end in their
// colours with their boundaries; linked to the map: the hovered point shows
// on both, a click picks a point (to end a day there or add a waypoint).
import { useEffect, useRef, useState } from "preact/hooks";
import { dayColour } from "../geo";
import { num, t } from "../i18n";
import { pointAt, type DayGeom, type RoutePoint } from "./model";

const PAD = { l: 44, r: 8, t: 18, b: 20 };

export function Profile(p: {
  geoms: DayGeom[];
  elevationKnown: boolean;
  selected: number | null;
  hover: RoutePoint | null;
  picked: RoutePoint | null;
  onHover: (pt: RoutePoint | null) => void;
  onPick: (pt: RoutePoint) => void;
}) {
  const svg = useRef<SVGSVGElement>(null);
  // Drawn at the element's own size (not stretched), so text stays legible
  // at phone width.
  const [size, setSize] = useState({ w: 1000, h: 170 });
  useEffect(() => {
    const el = svg.current!;
    const ro = new ResizeObserver(() => {
      const r = el.getBoundingClientRect();
      if (r.width > 0) setSize({ w: Math.round(r.width), h: Math.round(r.height) });
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const W = size.w;
  const H = size.h;
  const riding = p.geoms.filter((g) => !g.rest && g.pts.length > 1);
  const total = riding.reduce((m, g) => Math.max(m, g.start + g.distance), 0);
  let lo = Infinity;
  let hi = -Infinity;
  for (const g of riding) for (const e of g.ele) { lo = Math.min(lo, e); hi = Math.max(hi, e); }
  if (!p.elevationKnown || !isFinite(lo)) { lo = 0; hi = 100; }
  if (hi - lo < 50) hi = lo + 50;
  const x = (m: number) => PAD.l + (m / (total || 1)) * (W - PAD.l - PAD.r);
  const y = (e: number) => PAD.t + (1 - (e - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const base = H - PAD.b;

  const at = (ev: MouseEvent): RoutePoint | null => {
    const r = svg.current!.getBoundingClientRect();
    const sx = ((ev.clientX - r.left) / r.width) * W;
    const m = ((sx - PAD.l) / (W - PAD.l - PAD.r)) * total;
    return pointAt(p.geoms, Math.max(0, Math.min(total, m)));
  };

  const cursor = (pt: RoutePoint | null, cls: string) =>
    pt ? <line class={cls} x1={x(pt.tripM)} x2={x(pt.tripM)} y1={PAD.t - 6} y2={base} /> : null;

  const ticks = [lo, (lo + hi) / 2, hi];
  return (
    <figure class="profile-wrap">
      <svg ref={svg} class="profile" data-testid="profile" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={t("profile")}
        onMouseMove={(e) => p.onHover(at(e))} onMouseLeave={() => p.onHover(null)}
        onClick={(e) => { const pt = at(e); if (pt) p.onPick(pt); }}>
        {ticks.map((e) => (
          <g>
            <line class="grid" x1={PAD.l} x2={W - PAD.r} y1={y(e)} y2={y(e)} />
            <text class="axis" x={PAD.l - 4} y={y(e) + 4} text-anchor="end">{num(e)}</text>
          </g>
        ))}
        {riding.map((g) => {
          const pts = g.pts.map((_, i) => `${x(g.start + g.cum[i]).toFixed(1)},${y(p.elevationKnown ? g.ele[i] ?? lo : lo).toFixed(1)}`);
          const area = `M${x(g.start).toFixed(1)},${base} L${pts.join(" L")} L${x(g.start + g.distance).toFixed(1)},${base} Z`;
          const dim = p.selected !== null && p.selected !== g.index;
          return (
            <g class={`day d${g.index}`} opacity={dim ? 0.45 : 1}>
              <path d={area} fill={dayColour(g.index)} fill-opacity="0.22" />
              <path d={`M${pts.join(" L")}`} fill="none" stroke={dayColour(g.index)} stroke-width="2" vector-effect="non-scaling-stroke" />
              <line class="boundary" x1={x(g.start)} x2={x(g.start)} y1={PAD.t - 6} y2={base} />
              <text class="day-no" x={x(g.start + g.distance / 2)} y={PAD.t - 5} text-anchor="middle" fill={dayColour(g.index)}>{g.index + 1}</text>
            </g>
          );
        })}
        <text class="axis" x={W - PAD.r} y={H - 4} text-anchor="end">{t("km", { n: num(total / 1000) })}</text>
        {cursor(p.hover, "hover-line")}
        {cursor(p.picked, "picked-line")}
      </svg>
      <figcaption class="hint">{p.elevationKnown ? t("profileHint") : t("noElevation")}</figcaption>
    </figure>
  );
}
