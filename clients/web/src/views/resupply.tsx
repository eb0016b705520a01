// Where a rider refills water and buys food along a day: a count per kind
// and the first water in the day row ("Water: 3 · Shops: 2 · first water
// at km 14"), the points in route order under the open day (how far along,
// how far off the route, open or closed when the rider passes), and the
// located points for the map.
import { OpenAtPassage, ResupplyKind, type ResupplyPoint, type StageResupply } from "../gen/roadbook/v1/stage_pb";
import { clock } from "../format";
import { num, t, type Key } from "../i18n";

// Each kind: its name, its count in the day line, its mark (characters
// common fonts have: a headless browser or an old phone may have no emoji).
const kinds: [ResupplyKind, Key, Key, string][] = [
  [ResupplyKind.WATER, "rsWater", "rsWaterN", "≈"],
  [ResupplyKind.SHOP, "rsShop", "rsShopN", "▣"],
  [ResupplyKind.FOOD, "rsFood", "rsFoodN", "☕"],
];

// resupplySymbol is the mark of a kind, on the map and in the list.
export function resupplySymbol(k: ResupplyKind): string {
  return kinds.find(([kind]) => kind === k)?.[3] ?? "●";
}

// kindName names a kind in the current language (a point without a name of its own).
export function kindName(k: ResupplyKind): string {
  return t(kinds.find(([kind]) => kind === k)?.[1] ?? "rsWater");
}

// resupplyLine counts what the day offers, the points listed and those the
// analysis kept back alike, and says where the first water is.
export function resupplyLine(r: StageResupply): string {
  const parts: string[] = [];
  for (const [k, , count] of kinds) {
    const n = r.points.filter((p) => p.kind === k).length + r.omitted.filter((o) => o.kind === k).reduce((s, o) => s + o.count, 0);
    if (n > 0) parts.push(t(count, { n }));
  }
  if (parts.length === 0) return t("rsNone");
  const water = r.points.find((p) => p.kind === ResupplyKind.WATER);
  if (water) parts.push(t("rsFirstWater", { km: num(water.atM / 1000, 1) }));
  return parts.join(" · ");
}

function passage(p: ResupplyPoint): string {
  const at = clock(p.passageMinuteOfDay);
  if (p.openAtPassage === OpenAtPassage.OPEN) return t("rsOpen", { time: at });
  if (p.openAtPassage === OpenAtPassage.CLOSED) return t("rsClosed", { time: at });
  return p.openingHours ? t("rsHours", { hours: p.openingHours }) : "";
}

// Resupply lists the day's points in route order under the open day (the
// counts are in the day's row above it).
export function Resupply({ r }: { r: StageResupply }) {
  return (
    <section class="resupply" data-testid="day-resupply">
      <h3 class="sub">{t("resupply")}</h3>
      {r.points.length ? null : <p>{resupplyLine(r)}</p>}
      {r.points.length ? (
        <ul class="resupply-points">
          {r.points.map((p) => {
            const when = passage(p);
            // A point without a name is named by its kind, once.
            const about = [p.name ? kindName(p.kind) : "", p.offRouteM >= 50 ? t("rsOff", { m: num(Math.round(p.offRouteM / 10) * 10) }) : ""].filter(Boolean).join(", ");
            return (
              <li class={p.openAtPassage === OpenAtPassage.CLOSED ? "closed" : ""}>
                <span class={`rs-mark k${p.kind}`} aria-hidden="true">{resupplySymbol(p.kind)} </span>
                {t("rsAt", { km: num(p.atM / 1000, 1) })} · {p.name || kindName(p.kind)}
                {about ? <span class="muted"> ({about})</span> : null}
                {when ? <span class={p.openAtPassage === OpenAtPassage.CLOSED ? "sev warning" : "muted"}> · {when}</span> : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {r.omitted.length ? (
        <p class="muted small-text">
          {r.omitted.map((o) => t("rsMore", { n: o.count, kind: kindName(o.kind), a: num(o.fromM / 1000), b: num(o.toM / 1000) })).join(" · ")}
        </p>
      ) : null}
    </section>
  );
}
