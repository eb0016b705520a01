// What another client changed in a trip, said in the notice a page shows
// when the trip changed under it (an agent's write, another tab's).
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { humanize } from "../format";
import { TripSettingsSchema, type TripSettings } from "../gen/roadbook/v1/settings_pb";
import type { TripDigest } from "../gen/roadbook/v1/trip_pb";
import { hasKey, num, t } from "../i18n";

// MAX_DIFF_ITEMS bounds the notice: past it a rider reads the days.
const MAX_DIFF_ITEMS = 6;

// diffText says what changed between two digests, for a rider who did not
// make the change: the title, the number of days or each day whose length
// moved, and the settings by name. Empty without the state before.
export function diffText(a: TripDigest | null, b: TripDigest): string {
  if (!a) return "";
  const out: string[] = [];
  if (a.title !== b.title) out.push(t("diffTitle", { a: a.title, b: b.title }));
  if (a.stages.length !== b.stages.length) out.push(t("diffDays", { a: a.stages.length, b: b.stages.length }));
  else {
    b.stages.forEach((s, i) => {
      const before = a.stages[i].distanceM;
      if (Math.abs(before - s.distanceM) > 50) out.push(t("diffDay", { n: i + 1, a: num(before / 1000, 1), b: num(s.distanceM / 1000, 1) }));
    });
  }
  if (a.settings && b.settings) out.push(...settingsDiff(a.settings, b.settings));
  return out.slice(0, MAX_DIFF_ITEMS).join(" ");
}

// settingsDiff names each number or text setting that changed, with its
// values ("Riding hours a day: 5.5 → 6."), and says "Settings changed." once
// for the others (a preset, a switch, the accommodation types) when no
// value was named: a preset follows the values it sets.
function settingsDiff(a: TripSettings, b: TripSettings): string[] {
  const va = a as unknown as Record<string, unknown>, vb = b as unknown as Record<string, unknown>;
  const out: string[] = [];
  let other = false;
  for (const f of TripSettingsSchema.fields) {
    const x = va[f.localName], y = vb[f.localName];
    if (f.fieldKind === "scalar" && f.scalar !== ScalarType.BOOL) {
      if (x !== y) out.push(t("diffSetting", { name: settingLabel(f), a: settingValue(x), b: settingValue(y) }));
    } else if (JSON.stringify(x) !== JSON.stringify(y)) other = true;
  }
  if (other && out.length === 0) out.push(t("diffSettings"));
  return out;
}

// settingLabel is a setting's name as the settings dialog labels it.
function settingLabel(f: DescField): string {
  return hasKey(f.name) ? t(f.name) : humanize(f.name);
}

// settingValue writes a number in the page's language with the decimals it
// has (at most two), a text as is, and
// an unset text (no start date) as a dash.
function settingValue(v: unknown): string {
  if (typeof v === "number") return num(v, [0, 1, 2].find((d) => Math.abs(v * 10 ** d - Math.round(v * 10 ** d)) < 1e-9) ?? 2);
  return v === "" || v === undefined ? "—" : String(v);
}
