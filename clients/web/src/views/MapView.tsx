// The map: one coloured line per day, a numbered marker at each day's end,
// waypoints, chosen and candidate accommodations, resupply points and
// located alerts, drawn with Leaflet's SVG renderer (no WebGL: it renders
// in a headless browser without a GPU). Tiles are configuration; without
// them, or when they fail to load, the route is drawn on a plain background
// and the page says so.
import L from "leaflet";
import { useEffect, useRef, useState } from "preact/hooks";
import type { PlannerConfig } from "../config";
import { dayColour } from "../geo";
import type { StageDetail } from "../gen/roadbook/v1/stage_pb";
import { Severity } from "../gen/roadbook/v1/alert_pb";
import { alertText, t } from "../i18n";
import { nearest, type DayGeom, type RoutePoint } from "./model";
import { extraPoints } from "./extras";
import { kindName, resupplySymbol } from "./resupply";

export interface MapProps {
  cfg: PlannerConfig;
  geoms: DayGeom[];
  details: Map<number, StageDetail>;
  selected: number | null;
  hover: RoutePoint | null;
  picked: RoutePoint | null;
  onHover: (p: RoutePoint | null) => void;
  onPick: (p: RoutePoint) => void;
  onSelect: (day: number) => void;
}

const severityClass: Record<number, string> = { [Severity.CRITICAL]: "critical", [Severity.WARNING]: "warning", [Severity.NUDGE]: "nudge" };

function icon(cls: string, text: string, label: string): L.DivIcon {
  const span = document.createElement("span");
  span.textContent = text;
  span.setAttribute("aria-label", label);
  span.setAttribute("role", "img");
  return L.divIcon({ className: `pin ${cls}`, html: span, iconSize: [22, 22], iconAnchor: [11, 11] });
}

export function MapView(p: MapProps) {
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  const cursor = useRef<L.LayerGroup | null>(null);
  const fitted = useRef("");
  // lastFit is the area the map was last fitted to: fitted again when the
  // map changes size (a phone turned, the window resized).
  const lastFit = useRef<L.LatLngBounds | null>(null);
  const [tilesFailed, setTilesFailed] = useState(false);
  const props = useRef(p);
  props.current = p;

  useEffect(() => {
    const m = L.map(el.current!, { zoomControl: true, attributionControl: true, preferCanvas: false, zoomSnap: 0.25, zoomDelta: 0.5, fadeAnimation: false });
    m.setView([60, 10], 5);
    if (p.cfg.tiles.url) {
      let loaded = 0;
      let failed = 0;
      L.tileLayer(p.cfg.tiles.url, { maxZoom: p.cfg.tiles.maxZoom, attribution: p.cfg.tiles.attribution, crossOrigin: true })
        .on("tileload", () => { loaded++; setTilesFailed(false); })
        .on("tileerror", () => { failed++; if (failed >= 2 && loaded === 0) setTilesFailed(true); })
        .addTo(m);
    }
    layer.current = L.layerGroup().addTo(m);
    cursor.current = L.layerGroup().addTo(m);
    m.on("click", (e: L.LeafletMouseEvent) => {
      const pt = nearest(props.current.geoms, e.latlng.lat, e.latlng.lng);
      if (pt) props.current.onPick(pt);
    });
    map.current = m;
    let alive = true;
    const ro = new ResizeObserver(() => {
      if (!alive) return;
      m.invalidateSize({ animate: false });
      if (lastFit.current) m.fitBounds(lastFit.current, { padding: [24, 24], animate: false });
    });
    ro.observe(el.current!);
    return () => {
      // Stop any pan or zoom in flight first: removing a map mid-animation
      // leaves Leaflet callbacks pointing at panes that no longer exist.
      alive = false;
      ro.disconnect();
      m.stop();
      m.off();
      m.remove();
      map.current = null;
    };
  }, []);

  // The route, markers and alerts: redrawn when the days or their details change.
  useEffect(() => {
    const m = map.current;
    const g = layer.current;
    if (!m || !g) return;
    g.clearLayers();
    const bounds = L.latLngBounds([]);
    for (const d of p.geoms) {
      if (d.rest || d.pts.length < 2) continue;
      const sel = p.selected === d.index;
      const line = L.polyline(d.pts, { color: dayColour(d.index), weight: sel ? 7 : 4, opacity: p.selected === null || sel ? 0.95 : 0.55, interactive: false, className: `day-line day-line-${d.index}` });
      line.addTo(g);
      const hit = L.polyline(d.pts, { color: "#000", weight: 18, opacity: 0, className: "route-hit" });
      hit.on("mousemove", (e: L.LeafletMouseEvent) => props.current.onHover(nearest([d], e.latlng.lat, e.latlng.lng)));
      hit.on("mouseout", () => props.current.onHover(null));
      hit.on("click", (e: L.LeafletMouseEvent) => {
        L.DomEvent.stopPropagation(e);
        const pt = nearest([d], e.latlng.lat, e.latlng.lng);
        if (pt) props.current.onPick(pt);
      });
      hit.addTo(g);
      bounds.extend(line.getBounds());
    }
    // Day ends, numbered, in the day's colour.
    for (const d of p.geoms) {
      const last = d.pts[d.pts.length - 1];
      if (!last || d.rest) continue; // a rest day is where the day before ends
      const n = d.index + 1;
      const mk = L.marker(last, { icon: icon(`day-end c${d.index % 10}`, String(n), t("day", { n })), keyboard: false, title: t("day", { n }) });
      mk.on("click", () => props.current.onSelect(d.index));
      mk.addTo(g);
    }
    for (const [i, st] of p.details) {
      for (const w of st.waypoints) {
        if (w.location) L.marker([w.location.lat, w.location.lon], { icon: icon("wp", "◆", w.name), title: w.name, keyboard: false }).addTo(g);
      }
      const acc = st.chosenAccommodation;
      if (acc?.location) L.marker([acc.location.lat, acc.location.lon], { icon: icon("acc chosen", "⌂", acc.name), title: acc.name, keyboard: false }).addTo(g);
      if (p.selected === i) {
        for (const c of st.accommodationCandidates) {
          if (c.location && c.id !== acc?.id) L.marker([c.location.lat, c.location.lon], { icon: icon("acc", "⌂", c.name), title: c.name, keyboard: false }).addTo(g);
        }
      }
      for (const a of st.alerts) {
        if (!a.location) continue;
        const text = alertText(a.code, a.metrics, a.message);
        L.circleMarker([a.location.lat, a.location.lon], { radius: 7, className: `alert-dot ${severityClass[a.severity] ?? "nudge"}`, weight: 2 })
          .bindTooltip(text)
          .addTo(g);
      }
      for (const r of st.resupply?.points ?? []) {
        if (!r.location) continue;
        const name = r.name || kindName(r.kind);
        L.marker([r.location.lat, r.location.lon], { icon: icon(`resupply k${r.kind}`, resupplySymbol(r.kind), name), title: name, keyboard: false }).addTo(g);
      }
      for (const x of extraPoints(st)) {
        L.marker([x.lat, x.lon], { icon: icon("resupply", x.symbol, x.label), title: x.label, keyboard: false }).addTo(g);
      }
    }
    const key = p.selected === null ? `all:${p.geoms.length}:${p.geoms.map((d) => d.distance.toFixed(0)).join(",")}` : `day:${p.selected}`;
    if (fitted.current !== key) {
      fitted.current = key;
      const sel = p.selected === null ? null : p.geoms.find((d) => d.index === p.selected);
      const b = sel && sel.pts.length > 1 ? L.latLngBounds(sel.pts) : bounds;
      if (b.isValid()) {
        lastFit.current = b;
        m.fitBounds(b, { padding: [24, 24], animate: false });
      }
    }
  }, [p.geoms, p.details, p.selected]);

  // The hovered and picked points, drawn on their own layer so hovering
  // never redraws the route.
  useEffect(() => {
    const c = cursor.current;
    if (!map.current || !c) return;
    c.clearLayers();
    if (p.hover) L.circleMarker([p.hover.lat, p.hover.lon], { radius: 6, className: "hover-dot", weight: 2, interactive: false }).addTo(c);
    if (p.picked) L.circleMarker([p.picked.lat, p.picked.lon], { radius: 8, className: "picked-dot", weight: 3, interactive: false }).addTo(c);
  }, [p.hover, p.picked]);

  const plain = !p.cfg.tiles.url || tilesFailed;
  return (
    <div class="map-wrap">
      <div ref={el} class={`map ${plain ? "plain" : ""}`} data-testid="map" role="region" aria-label={t("map")} />
      {plain ? (
        <p class="map-note" data-testid="map-note" role="status">
          {p.cfg.tiles.url ? t("tilesOffline") : t("noTiles")}
        </p>
      ) : null}
    </div>
  );
}
