// Trip settings, built from the settings message's schema: every field the
// API has gets an input (any setting added later shows up without a new
// client). The rider presets come first: choosing one fills its values,
// which the API gives (the same change with validate_only answers the
// settings as they would be), and each value stays editable; editing one
// makes the trip custom. A change that recomputes the days shows its impact
// first, and so does re-cutting the days of a trip paced by the old engine.
import { useRef, useState } from "preact/hooks";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { failure, idem, type ApiFailure } from "../api";
import { humanize } from "../format";
import { TripSettingsInputSchema, AccommodationType, RiderPreset } from "../gen/roadbook/v1/settings_pb";
import type { TripDigest } from "../gen/roadbook/v1/trip_pb";
import { hasKey, t, type Key } from "../i18n";
import type { Ctx } from "./App";
import { ErrorNote, Modal } from "./common";
import type { TripActions } from "./TripPage";

type Values = Record<string, unknown>;

// presetFields are the values a preset sets (docs/design/PACING.md
// "Presets"); editing one of them makes the trip custom.
const presetFields = new Set(["fatigueFactor", "elevationPenaltyMPerKm", "maxDistancePerDayKm", "averageSpeedKmPerH", "dailyRidingHours", "restDayEvery"]);

// fieldsInOrder puts the values a preset sets right under the preset
// choice, then the others in the schema's order.
const fieldsInOrder = [...TripSettingsInputSchema.fields].sort((a, b) => Number(presetFields.has(b.localName)) - Number(presetFields.has(a.localName)));

const presets: [RiderPreset, Key, string][] = [
  [RiderPreset.BEGINNER, "preset1", "beginner"],
  [RiderPreset.INTERMEDIATE, "preset2", "intermediate"],
  [RiderPreset.EXPERT, "preset3", "expert"],
  [RiderPreset.CUSTOM, "preset4", "custom"],
];

function fieldLabel(f: DescField): string {
  return hasKey(f.name) ? t(f.name) : humanize(f.name);
}

export function SettingsDialog({ ctx, id, digest, actions, onClose }: { ctx: Ctx; id: string; digest: TripDigest; actions: TripActions; onClose: () => void }) {
  const current = (digest.settings ?? {}) as unknown as Values;
  const currentPreset = digest.settings?.preset || RiderPreset.CUSTOM;
  const [title, setTitle] = useState(digest.title);
  const [values, setValues] = useState<Values>({});
  // preset is the preset shown: the trip's, the one chosen, or custom
  // once a value it sets is edited.
  const [preset, setPreset] = useState<RiderPreset>(currentPreset);
  const [error, setError] = useState<ApiFailure | null>(null);
  const set = (k: string, v: unknown) => {
    setValues({ ...values, [k]: v });
    if (presetFields.has(k)) setPreset(RiderPreset.CUSTOM);
  };
  const value = (k: string) => (k in values ? values[k] : current[k]);

  // choice counts the choices: arrow keys run through the presets faster
  // than the API answers, and only the last choice's values are filled.
  const choice = useRef(0);
  // choose fills the preset's values, asked from the API.
  const choose = async (p: RiderPreset) => {
    const mine = ++choice.current;
    setPreset(p);
    setError(null);
    const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !presetFields.has(k)));
    if (p === RiderPreset.CUSTOM) return;
    if (p === currentPreset) return setValues(rest); // the trip's own values
    try {
      const res = await ctx.api.trips.updateTripSettings({ tripId: id, version: digest.version, settings: { preset: p }, validateOnly: true });
      if (mine !== choice.current) return;
      const next = (res.settings ?? {}) as unknown as Values;
      const filled: Values = { ...rest };
      for (const k of presetFields) if (next[k] !== current[k]) filled[k] = next[k];
      setValues(filled);
    } catch (err) {
      if (mine === choice.current) setError(failure(err));
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const settings: Values = {};
    for (const [k, v] of Object.entries(values)) {
      if (k === "enabledAccommodationTypes") settings[k] = { types: v };
      else if (preset !== RiderPreset.CUSTOM && presetFields.has(k)) continue; // the preset sets them
      else settings[k] = v;
    }
    if (preset !== RiderPreset.CUSTOM && preset !== currentPreset) settings.preset = preset;
    const change = { tripId: id, settings, ...(title !== digest.title ? { title } : {}) };
    try {
      const ok = await actions.run((v) => ctx.api.trips.updateTripSettings({ ...change, version: v, idempotencyKey: idem() }).then((r) => ({ version: r.version, versionUnchanged: r.versionUnchanged })), {
        confirmTitle: t("settings"),
        resetsUndo: true,
        preview: (v) => ctx.api.trips.updateTripSettings({ ...change, version: v, validateOnly: true }),
      });
      if (ok) onClose();
    } catch (err) {
      setError(failure(err));
    }
  };

  return (
    <Modal title={t("settings")} onClose={onClose} testid="settings">
      <form onSubmit={submit} class="settings-form">
        <label>
          {t("title")}
          <input value={title} required maxLength={255} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <fieldset class="presets" data-testid="presets">
          <legend>{t("presetLegend")}</legend>
          <p class="muted small-text" id="preset-hint">{t("presetHint")}</p>
          <div class="preset-choices">
            {presets.map(([p, key, name]) => (
              <label class="check">
                <input type="radio" name="preset" value={name} checked={preset === p} aria-describedby="preset-hint" data-testid={`preset-${name}`}
                  onChange={() => void choose(p)} />
                {t(key)}
              </label>
            ))}
          </div>
        </fieldset>
        {fieldsInOrder.map((f) => {
          const k = f.localName;
          if (f.name === "preset") return null; // the choice above
          const v = value(k);
          if (f.fieldKind === "scalar" && f.scalar === ScalarType.BOOL) {
            return (
              <label class="check">
                <input type="checkbox" checked={Boolean(v)} onChange={(e) => set(k, (e.currentTarget as HTMLInputElement).checked)} />
                {fieldLabel(f)}
              </label>
            );
          }
          if (f.fieldKind === "scalar" && f.scalar === ScalarType.STRING) {
            const date = /date/.test(f.name);
            return (
              <label>
                {fieldLabel(f)}
                <input type={date ? "date" : "text"} value={String(v ?? "")} onInput={(e) => set(k, (e.currentTarget as HTMLInputElement).value)} />
              </label>
            );
          }
          if (f.fieldKind === "scalar") {
            const int = f.scalar !== ScalarType.DOUBLE && f.scalar !== ScalarType.FLOAT;
            return (
              <label>
                {fieldLabel(f)}
                <input type="number" step={int ? "1" : "any"} value={v === undefined ? "" : String(v)} data-field={k}
                  onInput={(e) => { const x = (e.currentTarget as HTMLInputElement).value; if (x !== "") set(k, int ? parseInt(x, 10) : parseFloat(x)); }} />
              </label>
            );
          }
          if (f.fieldKind === "enum") {
            return (
              <label>
                {fieldLabel(f)}
                <select value={String(v ?? 0)} onChange={(e) => set(k, Number((e.currentTarget as HTMLSelectElement).value))}>
                  {f.enum.values.filter((x) => x.number !== 0).map((x) => <option value={String(x.number)}>{humanize(x.localName)}</option>)}
                </select>
              </label>
            );
          }
          if (f.fieldKind === "message" && f.name === "enabled_accommodation_types") {
            const chosen = new Set<number>((v as number[] | { types?: number[] } | undefined) instanceof Array ? (v as number[]) : ((current.enabledAccommodationTypes as number[]) ?? []));
            return (
              <fieldset>
                <legend>{fieldLabel(f)}</legend>
                {[1, 2, 3, 4, 5, 6, 7].map((n) => (
                  <label class="check">
                    <input type="checkbox" checked={chosen.has(n)} onChange={(e) => {
                      const next = new Set(chosen);
                      if ((e.currentTarget as HTMLInputElement).checked) next.add(n);
                      else next.delete(n);
                      set(k, [...next].sort() as AccommodationType[]);
                    }} />
                    {t(`accType${n}` as Key)}
                  </label>
                ))}
              </fieldset>
            );
          }
          return null;
        })}
        {digest.settings?.pacingEngine === 1 && !digest.settings.locked ? <Repace ctx={ctx} id={id} actions={actions} onDone={onClose} /> : null}
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" onClick={onClose}>{t("cancel")}</button>
          <button type="submit" class="primary" data-testid="settings-apply">{t("apply")}</button>
        </div>
      </form>
    </Modal>
  );
}

// Repace re-cuts the days of a trip paced by the old distance-only engine
// with the effort model, showing first what is lost (manual day edits,
// chosen nights).
function Repace({ ctx, id, actions, onDone }: { ctx: Ctx; id: string; actions: TripActions; onDone: () => void }) {
  const go = async () => {
    const change = { tripId: id, settings: {}, repace: true };
    const ok = await actions.run((v) => ctx.api.trips.updateTripSettings({ ...change, version: v, idempotencyKey: idem() }).then((r) => ({ version: r.version, versionUnchanged: r.versionUnchanged })), {
      confirmTitle: t("repace"),
      resetsUndo: true,
      preview: (v) => ctx.api.trips.updateTripSettings({ ...change, version: v, validateOnly: true }),
    });
    if (ok) onDone();
  };
  return (
    <section class="repace">
      <p class="muted small-text" id="repace-hint">{t("repaceHint")}</p>
      <button type="button" aria-describedby="repace-hint" data-testid="repace" onClick={() => void go()}>{t("repace")}</button>
    </section>
  );
}
