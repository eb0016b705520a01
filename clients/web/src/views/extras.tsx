// Fields of a day that this build of the planner does not know by name
// (anything added to GetStage after it was written): found through the
// message's schema and rendered generically, so a newer API shows its data
// without a new client. Points with a location among them go on the map.
// Weather and resupply points are known and have their own views
// (weather.tsx, resupply.tsx).
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { StageDetailSchema, type StageDetail } from "../gen/roadbook/v1/stage_pb";
import { humanize } from "../format";
import { t } from "../i18n";

const known = new Set([
  "index", "date", "restDay", "start", "end", "startLabel", "endLabel", "distanceM", "ascentM", "descentM", "riderTime",
  "alerts", "families", "analyzed", "accommodationCandidates", "chosenAccommodation", "waypoints", "manuallyEdited",
  "resupply", "weather",
]);

export interface Extra {
  name: string;
  value: JsonValue;
}

export function extras(st: StageDetail): Extra[] {
  const json = toJson(StageDetailSchema, st) as JsonObject;
  const out: Extra[] = [];
  for (const f of StageDetailSchema.fields) {
    if (known.has(f.localName)) continue;
    const v = json[f.jsonName];
    if (v !== undefined && v !== null) out.push({ name: f.name, value: v });
  }
  return out;
}

export interface ExtraPoint {
  lat: number;
  lon: number;
  label: string;
  symbol: string;
}

// extraPoints are the located items among the unknown fields (e.g. a
// water tap with its location).
export function extraPoints(st: StageDetail): ExtraPoint[] {
  const out: ExtraPoint[] = [];
  const visit = (v: JsonValue, kind: string, depth: number) => {
    if (depth > 4 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, kind, depth + 1);
      return;
    }
    const loc = (v.location ?? v) as JsonObject;
    if (typeof loc.lat === "number" && typeof loc.lon === "number") {
      const label = String(v.name ?? v.kind ?? kind);
      const k = String(v.kind ?? v.type ?? kind).toLowerCase();
      out.push({ lat: loc.lat, lon: loc.lon, label, symbol: /water|spring|drink/.test(k) ? "💧" : /food|shop|super|cafe|restaurant/.test(k) ? "🍞" : "●" });
      return;
    }
    for (const [key, x] of Object.entries(v)) visit(x, key, depth + 1);
  };
  for (const e of extras(st)) visit(e.value, e.name, 0);
  return out;
}

function Value({ v }: { v: JsonValue }) {
  if (v === null || typeof v !== "object") return <>{String(v)}</>;
  if (Array.isArray(v)) {
    return (
      <ul>
        {v.slice(0, 20).map((x) => (
          <li><Value v={x} /></li>
        ))}
      </ul>
    );
  }
  return (
    <dl class="kv">
      {Object.entries(v).map(([k, x]) => (
        <>
          <dt>{humanize(k)}</dt>
          <dd><Value v={x} /></dd>
        </>
      ))}
    </dl>
  );
}

// Extras renders the unknown fields under "More".
export function Extras({ stage }: { stage: StageDetail }) {
  const list = extras(stage);
  if (list.length === 0) return null;
  return (
    <>
      {list.map((e) => (
        <section class="extra" data-field={e.name}>
          <h4>{t("more")} · {humanize(e.name)}</h4>
          <Value v={e.value} />
        </section>
      ))}
    </>
  );
}
