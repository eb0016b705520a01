// The day list: one row per day (km, climbing, riding time, where it
// starts and ends, alerts by severity, the night), and under the selected
// row everything about that day and every edit of it.
import { useState } from "preact/hooks";
import { failure, idem, type ApiFailure } from "../api";
import { clock, hoursMinutes, km } from "../format";
import { dayColour } from "../geo";
import { Severity, type Alert } from "../gen/roadbook/v1/alert_pb";
import { ExportFormat } from "../gen/roadbook/v1/export_pb";
import type { Place } from "../gen/roadbook/v1/geocoding_pb";
import type { StageDetail } from "../gen/roadbook/v1/stage_pb";
import type { StageDigest, TripDigest } from "../gen/roadbook/v1/trip_pb";
import { alertText, num, t, type Key } from "../i18n";
import type { Ctx } from "./App";
import { download, ErrorNote } from "./common";
import { Extras } from "./extras";
import { Resupply, resupplyLine } from "./resupply";
import { Missing, Weather, weatherLine } from "./weather";
import type { RoutePoint } from "./model";
import type { TripActions } from "./TripPage";

const sevClass: Record<number, string> = { [Severity.CRITICAL]: "critical", [Severity.WARNING]: "warning", [Severity.NUDGE]: "nudge" };
const sevIcon: Record<number, string> = { [Severity.CRITICAL]: "●", [Severity.WARNING]: "▲", [Severity.NUDGE]: "◆" };

function label(s: string): string {
  return s || t("unnamed");
}

export function DayList(p: { ctx: Ctx; id: string; digest: TripDigest; details: Map<number, StageDetail>; selected: number | null; picked: RoutePoint | null; actions: TripActions }) {
  const d = p.digest;
  return (
    <section class="days" aria-labelledby="days-h">
      <h2 id="days-h" class="sub">{t("dayList")}</h2>
      {d.tripAlerts.length ? (
        <ul class="alerts trip-alerts">
          {d.tripAlerts.map((a) => <AlertItem a={a} />)}
        </ul>
      ) : null}
      <ol class="day-list">
        {d.stages.map((s) => (
          <DayRow {...p} s={s} detail={p.details.get(s.index)} open={p.selected === s.index} />
        ))}
      </ol>
    </section>
  );
}

function DayRow(p: { ctx: Ctx; id: string; digest: TripDigest; s: StageDigest; detail?: StageDetail; open: boolean; picked: RoutePoint | null; actions: TripActions }) {
  const { s, detail } = p;
  const n = s.index + 1;
  const rt = detail?.riderTime;
  const hm = hoursMinutes(rt?.ridingDuration);
  const c = s.alertCounts;
  return (
    <li class={`day-row ${p.open ? "open" : ""} ${s.restDay ? "rest" : ""}`} data-testid="day-row" data-stage-index={s.index}>
      <button type="button" class="day-head" aria-expanded={p.open} aria-controls={`day-${n}`} onClick={() => p.actions.select(p.open ? null : s.index)}>
        <span class="day-no" style={{ background: dayColour(s.index) }}>{n}</span>
        <span class="day-main">
          <span class="day-title">
            {t("day", { n })}
            {s.date ? <span class="date"> · {s.date}</span> : null}
            {s.restDay ? <span class="badge"> {t("restDay")}</span> : null}
          </span>
          <span class="day-route" data-testid="day-route">
            {s.restDay ? t("restAt", { a: label(s.endLabel) }) : t("from", { a: label(s.startLabel), b: label(s.endLabel) })}
          </span>
          {s.restDay ? null : (
            <span class="day-facts">
              <span data-testid="day-km">{km(s.distanceM)}</span> · {t("climb", { n: num(s.ascentM) })}
              {rt ? <> · {t("riding", { h: hm.h, m: hm.m })}</> : null}
            </span>
          )}
          {!s.restDay && detail?.weather ? <span class="day-outlook" data-testid="day-weather-line">{weatherLine(detail.weather)}</span> : null}
          {!s.restDay && detail?.resupply ? <span class="day-outlook" data-testid="day-resupply-line">{resupplyLine(detail.resupply)}</span> : null}
          <span class="day-badges">
            {c && c.critical ? <span class="sev critical">● {t(c.critical === 1 ? "alertsCritical1" : "alertsCritical", { n: c.critical })}</span> : null}
            {c && c.warning ? <span class="sev warning">▲ {t(c.warning === 1 ? "alertsWarning1" : "alertsWarning", { n: c.warning })}</span> : null}
            {c && c.nudge ? <span class="sev nudge">◆ {t(c.nudge === 1 ? "alertsNudge1" : "alertsNudge", { n: c.nudge })}</span> : null}
            {!s.analyzed && !s.restDay ? <span class="muted">{t("notAnalysed")}</span> : null}
            {s.accommodationName ? <span class="night">⌂ {s.accommodationName}</span> : null}
          </span>
        </span>
      </button>
      {p.open ? <DayPanel {...p} /> : null}
    </li>
  );
}

function AlertItem({ a, onAct }: { a: Alert; onAct?: () => void }) {
  const act = a.action?.kind;
  let what = "";
  if (act?.case === "splitAtKm") what = t("actionSplit", { km: num(act.value, 1) });
  if (act?.case === "setDepartureHour") what = t("actionDeparture", { h: act.value });
  if (act?.case === "addRestDayAfterIndex") what = t("actionRest", { n: act.value + 1 });
  return (
    <li class={`alert ${sevClass[a.severity] ?? "nudge"}`} data-code={a.code}>
      <span aria-hidden="true">{sevIcon[a.severity] ?? "•"} </span>
      {alertText(a.code, a.metrics, a.message)}
      {what && onAct ? (
        <button type="button" class="small" onClick={onAct}>{t("alertAction", { what })}</button>
      ) : null}
    </li>
  );
}

function DayPanel(p: { ctx: Ctx; id: string; digest: TripDigest; s: StageDigest; detail?: StageDetail; picked: RoutePoint | null; actions: TripActions }) {
  const { ctx, id, s, detail, actions } = p;
  const api = ctx.api;
  const i = s.index;
  const n = i + 1;
  const last = i === p.digest.stages.length - 1;
  const next = p.digest.stages[i + 1];
  const [cutKm, setCutKm] = useState("");
  const [error, setError] = useState<ApiFailure | null>(null);
  const stage = { tripId: id, stageIndex: i };

  const exportDay = async (format: ExportFormat) => {
    try {
      const res = await api.exports.exportTrip({ tripId: id, format, stageIndex: i });
      if (res.file) download(res.file.filename, res.file.contentType, res.file.content);
    } catch (e) {
      setError(failure(e));
    }
  };
  const rt = detail?.riderTime;
  return (
    <div class="day-panel" id={`day-${n}`}>
      {rt ? (
        <p class="schedule">
          {clock(rt.departureMinuteOfDay)} → {clock(rt.arrivalMinuteOfDay)} · {num(rt.effectiveSpeedKmPerH, 1)} km/h
        </p>
      ) : null}
      <section>
        <h3 class="sub">{t("alerts")}</h3>
        {detail && detail.alerts.length ? (
          <ul class="alerts">
            {detail.alerts.map((a) => (
              <AlertItem a={a} onAct={() => {
                const k = a.action?.kind;
                if (k?.case === "splitAtKm") void actions.run((v) => api.edits.updateStage({ ...stage, version: v, change: { case: "distanceKm", value: k.value }, idempotencyKey: idem() }), { undoable: true });
                if (k?.case === "setDepartureHour") void actions.run((v) => api.trips.updateTripSettings({ tripId: id, version: v, settings: { departureHour: k.value }, idempotencyKey: idem() }));
                if (k?.case === "addRestDayAfterIndex") void actions.run((v) => api.edits.addRestDay({ tripId: id, version: v, afterStageIndex: k.value, idempotencyKey: idem() }), { undoable: true });
              }} />
            ))}
          </ul>
        ) : (
          <p class="muted">{detail?.analyzed ? t("noAlerts") : t("notAnalysed")}</p>
        )}
      </section>
      {detail?.weather ? <Weather w={detail.weather} /> : null}
      {detail?.resupply && !s.restDay ? <Resupply r={detail.resupply} /> : null}
      {detail && !s.restDay ? <Missing st={detail} dated={Boolean(p.digest.settings?.startDate)} /> : null}
      {detail ? <Extras stage={detail} /> : null}

      <section class="edit">
        {s.restDay ? null : (
          <form class="inline" onSubmit={(e) => {
            e.preventDefault();
            const v = parseFloat(cutKm.replace(",", "."));
            if (v > 0) void actions.run((ver) => api.edits.updateStage({ ...stage, version: ver, change: { case: "distanceKm", value: v }, idempotencyKey: idem() }), { undoable: true });
          }}>
            <label for={`cut-${n}`}>{t("cutAtKm")}</label>
            <input id={`cut-${n}`} type="number" step="0.1" min="0.1" max={Math.floor(s.distanceM / 100) / 10} inputMode="decimal" value={cutKm}
              onInput={(e) => setCutKm((e.currentTarget as HTMLInputElement).value)} data-testid="cut-km" />
            <button type="submit">{t("cutDay")}</button>
          </form>
        )}
        <div class="buttons">
          {!s.restDay && !(next && next.restDay) ? (
            <button type="button" data-testid="add-rest-day" onClick={() => void actions.run((v) => api.edits.addRestDay({ tripId: id, version: v, afterStageIndex: i, idempotencyKey: idem() }), { undoable: true })}>
              {t("addRestDay")}
            </button>
          ) : null}
          {i > 0 ? (
            <button type="button" onClick={() => void actions.run((v) => api.edits.moveStage({ ...stage, version: v, toIndex: i - 1, idempotencyKey: idem() }), { undoable: true }).then(() => actions.select(i - 1))}>
              ↑ {t("moveUp")}
            </button>
          ) : null}
          {!last ? (
            <button type="button" onClick={() => void actions.run((v) => api.edits.moveStage({ ...stage, version: v, toIndex: i + 1, idempotencyKey: idem() }), { undoable: true }).then(() => actions.select(i + 1))}>
              ↓ {t("moveDown")}
            </button>
          ) : null}
          <button type="button" class="danger" data-testid="delete-day"
            onClick={() => void actions.run((v) => api.edits.deleteStage({ ...stage, version: v, idempotencyKey: idem() }),
              { undoable: true, confirmTitle: s.restDay || last ? t("deleteDay") : t("mergeNext"), preview: (v) => api.edits.deleteStage({ ...stage, version: v, validateOnly: true }) })}>
            {s.restDay || last ? t("deleteDay") : t("mergeNext")}
          </button>
        </div>
        {s.restDay ? null : <PlaceSearch ctx={ctx} id={id} s={s} actions={actions} />}
      </section>

      {s.restDay ? null : <Nights ctx={ctx} id={id} s={s} detail={detail} actions={actions} />}
      <Waypoints ctx={ctx} id={id} s={s} detail={detail} picked={p.picked} actions={actions} />

      <section class="export-day">
        <h3 class="sub">{t("exportDay")}</h3>
        <div class="buttons">
          {/* A rest day has no track, so no GPX or FIT file: its text lists the day. */}
          {s.restDay ? null : (
            <>
              <button type="button" data-testid="export-day-gpx" onClick={() => void exportDay(ExportFormat.GPX)}>{t("download", { fmt: "GPX" })}</button>
              <button type="button" data-testid="export-day-fit" onClick={() => void exportDay(ExportFormat.FIT)}>{t("download", { fmt: "FIT" })}</button>
            </>
          )}
          <button type="button" data-testid="export-day-text" onClick={() => void exportDay(ExportFormat.TEXT)}>{t("download", { fmt: t("text") })}</button>
        </div>
      </section>
      <ErrorNote error={error} />
    </div>
  );
}

// PlaceSearch moves the day's end to a searched place, or inserts a new
// day from this day's end to it.
function PlaceSearch({ ctx, id, s, actions }: { ctx: Ctx; id: string; s: StageDigest; actions: TripActions }) {
  const [q, setQ] = useState("");
  const [places, setPlaces] = useState<Place[] | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const n = s.index + 1;
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      const res = await ctx.api.places.searchPlaces({ query: q, limit: 5 });
      setPlaces(res.places);
      setError(null);
    } catch (err) {
      setError(failure(err));
    }
  };
  return (
    <div class="place-search">
      <form class="inline" onSubmit={search} role="search">
        <label for={`place-${n}`}>{t("moveEnd")}</label>
        <input id={`place-${n}`} value={q} minLength={2} required placeholder={t("searchPlace")} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit">{t("search")}</button>
      </form>
      {places ? (
        places.length === 0 ? <p class="muted">{t("noPlaces")}</p> : (
          <ul class="places">
            {places.map((pl) => (
              <li>
                <span>{pl.displayName || pl.name}</span>
                <button type="button" class="small" onClick={() => void actions.run((v) => ctx.api.edits.updateStage({ tripId: id, version: v, stageIndex: s.index,
                  change: { case: "points", value: { endPoint: pl.location } }, idempotencyKey: idem() }), { undoable: true }).then(() => setPlaces(null))}>
                  {t("moveEndTo")}
                </button>
                <button type="button" class="small" onClick={() => void actions.run(async (v) => {
                  const st = await ctx.api.trips.getStage({ tripId: id, stageIndex: s.index });
                  return ctx.api.edits.insertStage({ tripId: id, version: v, position: s.index + 1, startPoint: st.stage?.end, endPoint: pl.location, idempotencyKey: idem() });
                }, { undoable: true }).then(() => setPlaces(null))}>
                  {t("insertTo")}
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
      <ErrorNote error={error} />
    </div>
  );
}

const accTypeKey = (n: number) => `accType${n}` as Key;

function Nights({ ctx, id, s, detail, actions }: { ctx: Ctx; id: string; s: StageDigest; detail?: StageDetail; actions: TripActions }) {
  const [radius, setRadius] = useState("5");
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const chosen = detail?.chosenAccommodation;
  const rescan = async (e: Event) => {
    e.preventDefault();
    setSearching(true);
    try {
      await ctx.api.nights.rescanAccommodations({ tripId: id, version: (await ctx.api.trips.getTrip({ tripId: id })).trip!.version,
        radiusKm: Number(radius), stageIndexes: [s.index], idempotencyKey: idem() });
      setError(null);
    } catch (err) {
      setError(failure(err));
    } finally {
      setSearching(false);
    }
  };
  return (
    <section class="nights">
      <h3 class="sub">{t("accommodation")}</h3>
      {chosen ? <p>⌂ {t("chosen", { name: chosen.name })}</p> : null}
      {detail && detail.accommodationCandidates.length ? (
        <ul class="candidates" aria-label={t("candidates")}>
          {detail.accommodationCandidates.map((c) => (
            <li>
              <span class="cand-name">{c.name}</span>
              <span class="muted"> · {t(accTypeKey(c.type))} · {t("perNight", { min: num(c.priceMinEur), max: num(c.priceMaxEur) })} · {t("away", { km: num(c.distanceFromStageEndM / 1000, 1) })}
                {c.possibleClosed ? ` · ${t("mayBeClosed")}` : ""}</span>
              {chosen?.id === c.id ? null : (
                <button type="button" class="small" onClick={() => void actions.run((v) => ctx.api.nights.chooseAccommodation({ tripId: id, version: v, stageIndex: s.index, accommodationId: c.id, idempotencyKey: idem() })
                  .then((r) => ({ version: r.version, versionUnchanged: r.versionUnchanged })), { undoable: true })}>
                  {t("choose")}
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t("noCandidates")}</p>
      )}
      <form class="inline" onSubmit={rescan}>
        <label for={`radius-${s.index}`}>{t("radiusKm")}</label>
        <select id={`radius-${s.index}`} value={radius} onChange={(e) => setRadius((e.currentTarget as HTMLSelectElement).value)}>
          {[2, 5, 10, 15].map((r) => <option value={String(r)}>{r}</option>)}
        </select>
        <button type="submit" disabled={searching}>{searching ? t("searching") : t("searchAgain")}</button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}

function Waypoints({ ctx, id, s, detail, picked, actions }: { ctx: Ctx; id: string; s: StageDigest; detail?: StageDetail; picked: RoutePoint | null; actions: TripActions }) {
  const [name, setName] = useState("");
  const [cat, setCat] = useState("");
  const [error, setError] = useState<ApiFailure | null>(null);
  const n = s.index + 1;
  const add = async (e: Event) => {
    e.preventDefault();
    const at = picked && picked.day === s.index ? { lat: picked.lat, lon: picked.lon } : detail?.end;
    if (!at) return setError({ code: "invalid_argument", message: t("pickPointFirst") });
    const ok = await actions.run((v) => ctx.api.edits.addWaypoint({ tripId: id, version: v, stageIndex: s.index, name, category: cat.toLowerCase().replace(/[^a-z0-9_]/g, "_"),
      location: at, idempotencyKey: idem() }).then((r) => ({ version: r.version, versionUnchanged: true })));
    if (ok) {
      setName("");
      setCat("");
      actions.pick(null);
    }
  };
  return (
    <section class="waypoints">
      <h3 class="sub">{t("waypoints")}</h3>
      {detail && detail.waypoints.length ? (
        <ul>
          {detail.waypoints.map((w) => (
            <li>◆ {w.name} {w.category ? <span class="muted">({w.category})</span> : null} · {t("detour", { km: num(w.detourM / 1000, 1), est: w.detourEstimated ? t("estimated") : "" })}</li>
          ))}
        </ul>
      ) : null}
      <form class="wp-form" onSubmit={add}>
        <label class="field">
          {t("waypointName")}
          <input id={`wp-name-${s.index}`} value={name} required maxLength={255} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label class="field">
          {t("waypointCategory")}
          <input id={`wp-cat-${n}`} value={cat} maxLength={64} placeholder="water" onInput={(e) => setCat((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">{t("addWaypoint")}</button>
      </form>
      <p class="muted small-text">{picked && picked.day === s.index ? t("waypointAt") : t("waypointAtEnd")}</p>
      <ErrorNote error={error} />
    </section>
  );
}
