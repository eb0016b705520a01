// Trip settings, built from the settings message's schema: every field the
// API has gets an input (rider presets or any setting added later show up
// without a new client). A change that recomputes the days shows its impact
// first.
import { useState } from "preact/hooks";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { failure, idem, type ApiFailure } from "../api";
import { humanize } from "../format";
import { TripSettingsInputSchema, AccommodationType } from "../gen/roadbook/v1/settings_pb";
import type { TripDigest } from "../gen/roadbook/v1/trip_pb";
import { hasKey, t, type Key } from "../i18n";
import type { Ctx } from "./App";
import { ErrorNote, Modal } from "./common";
import type { TripActions } from "./TripPage";

type Values = Record<string, unknown>;

function fieldLabel(f: DescField): string {
  return hasKey(f.name) ? t(f.name) : humanize(f.name);
}

export function SettingsDialog({ ctx, id, digest, actions, onClose }: { ctx: Ctx; id: string; digest: TripDigest; actions: TripActions; onClose: () => void }) {
  const current = (digest.settings ?? {}) as unknown as Values;
  const [title, setTitle] = useState(digest.title);
  const [values, setValues] = useState<Values>({});
  const [error, setError] = useState<ApiFailure | null>(null);
  const set = (k: string, v: unknown) => setValues({ ...values, [k]: v });
  const value = (k: string) => (k in values ? values[k] : current[k]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const settings: Values = {};
    for (const [k, v] of Object.entries(values)) {
      if (k === "enabledAccommodationTypes") settings[k] = { types: v };
      else settings[k] = v;
    }
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
        {TripSettingsInputSchema.fields.map((f) => {
          const k = f.localName;
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
                <input type="number" step={int ? "1" : "any"} value={v === undefined ? "" : String(v)}
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
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" onClick={onClose}>{t("cancel")}</button>
          <button type="submit" class="primary" data-testid="settings-apply">{t("apply")}</button>
        </div>
      </form>
    </Modal>
  );
}
