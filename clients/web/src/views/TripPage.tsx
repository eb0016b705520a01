// One trip: live progress while it computes, the map, the profile and the
// day list, every edit through the API with the trip version, undo/redo
// through RestoreStageLayout, export and share.
import { useEffect, useRef, useState } from "preact/hooks";
import { failure, idem, isVersionConflict, type ApiFailure } from "../api";
import { decodePolyline, dayColour } from "../geo";
import { km } from "../format";
import type { TripDigest } from "../gen/roadbook/v1/trip_pb";
import { TripStatus } from "../gen/roadbook/v1/trip_pb";
import type { StageDetail } from "../gen/roadbook/v1/stage_pb";
import type { Impact } from "../gen/roadbook/v1/impact_pb";
import { ComputationState, type PartProgress } from "../gen/roadbook/v1/progress_pb";
import { num, t, type Key } from "../i18n";
import type { Ctx } from "./App";
import { Confirm, ErrorNote } from "./common";
import { DayList } from "./DayList";
import { MapView } from "./MapView";
import { dayGeom, type DayGeom, type RoutePoint } from "./model";
import { Profile } from "./Profile";
import { SettingsDialog } from "./SettingsDialog";
import { diffText } from "./tripDiff";
import { ExportShareDialog } from "./ExportShareDialog";

// Edit is one write the page sends: it gets the trip version and answers
// the version after it and, for stage edits, the new digest.
export type Edit = (version: bigint) => Promise<{ version: bigint; versionUnchanged: boolean; trip?: TripDigest }>;

// Preview is the same write with validate_only: its impact.
export type Preview = (version: bigint) => Promise<{ impact?: Impact }>;

export interface TripActions {
  // run sends an edit; undoable edits go on the undo stack. With preview,
  // the impact is shown first and the edit runs once confirmed.
  // With onlyIfLosing, the preview asks only when the impact loses a
  // night or a waypoint (undo and redo).
  // resetsUndo empties undo and redo (a settings change re-paces every day:
  // an earlier layout is no longer "the step before").
  run: (edit: Edit, opts?: { undoable?: boolean; preview?: Preview; confirmTitle?: string; onlyIfLosing?: boolean; resetsUndo?: boolean }) => Promise<boolean>;
  pick: (p: RoutePoint | null) => void;
  select: (day: number | null) => void;
  reloadDetails: () => void;
}

interface Pending {
  title: string;
  impact?: Impact;
  go: () => void;
}

const MAX_POINTS_PER_DAY = 400;

export function TripPage({ ctx, id }: { ctx: Ctx; id: string }) {
  const { api } = ctx;
  const [digest, setDigest] = useState<TripDigest | null>(null);
  const [details, setDetails] = useState<Map<number, StageDetail>>(new Map());
  const [geoms, setGeoms] = useState<DayGeom[]>([]);
  const [selected, setSelected] = useState<number | null>(null);
  const [hover, setHover] = useState<RoutePoint | null>(null);
  const [picked, setPicked] = useState<RoutePoint | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [notice, setNotice] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [dialog, setDialog] = useState<"" | "settings" | "export">("");
  const [gone, setGone] = useState(false);
  // A trip created from this tab shows its progress to the end, every part
  // ticking to done, then the panel folds away.
  const [justCreated, setJustCreated] = useState(Boolean((history.state as { created?: boolean } | null)?.created));
  const undo = useRef<{ from: bigint; to: bigint }[]>([]);
  const redo = useRef<{ from: bigint; to: bigint }[]>([]);
  const [, bump] = useState(0);
  const cur = useRef<TripDigest | null>(null);
  // ours are versions this page wrote: the watch stays quiet about them.
  const ours = useRef(new Set<bigint>());
  // writing counts this page's writes in flight: the stream may deliver
  // their version before their answer does.
  const writing = useRef(0);
  // streamed counts the live stream's messages and keeps the highest
  // version among them. An answer read before the stream's latest message
  // may be older than it at the same version (a re-pacing lands without a
  // new version): applied after it, it would put back days the stream
  // already replaced, and the stream, having sent the newer state, sends
  // nothing more to put it right (overtaken).
  const streamed = useRef({ n: 0, version: -1n });
  const loadedGeom = useRef("");
  const detailsSeq = useRef(0);
  // Reads in flight for an older state of the trip are cancelled when a
  // newer load or a write starts: they may name days that no longer exist.
  const reads = useRef<{ details?: AbortController; geometry?: AbortController }>({});
  const fresh = (k: "details" | "geometry") => {
    reads.current[k]?.abort();
    const c = new AbortController();
    reads.current[k] = c;
    return c.signal;
  };

  const apply = (d: TripDigest, fromElsewhere = false) => {
    const before = cur.current;
    cur.current = d;
    // Other days than the reads in flight were made for (a new version, or
    // a re-pacing landing without one): cancel them.
    if (before && (before.version !== d.version || before.stages.length !== d.stages.length)) {
      reads.current.details?.abort();
      reads.current.geometry?.abort();
    }
    setDigest(d);
    document.title = `${d.title} · Roadbook`;
    if (fromElsewhere && before && d.version !== before.version && !ours.current.has(d.version) && writing.current === 0) {
      setNotice(t("changedElsewhere", { from: String(before.version), to: String(d.version), what: diffText(before, d) }));
      undo.current = [];
      redo.current = [];
    }
  };

  // Geometry of every day, for the map and the profile: fetched again
  // when the version (so the days) changes.
  // recutting: the pacing engine is replacing every day (a settings change);
  // the days shown are about to go, so nothing is read for them.
  const recutting = (d: TripDigest) => {
    const st = d.progress?.stages?.state;
    return st === ComputationState.PENDING || st === ComputationState.RUNNING;
  };

  const loadGeometry = async (d: TripDigest) => {
    if (recutting(d)) return;
    const key = `${d.version}:${d.stages.length}:${d.partial}`;
    if (d.stages.length === 0 || loadedGeom.current === key) return;
    if (cur.current && cur.current.version > d.version) return;
    loadedGeom.current = key;
    const signal = fresh("geometry");
    const out: DayGeom[] = [];
    let start = 0;
    // Every day's line from one state of the trip (every_stage): asked day
    // by day, a day an edit removed meanwhile was an error.
    const res = await api.trips.getRouteGeometry({ tripId: id, everyStage: true, maxPoints: MAX_POINTS_PER_DAY }, { signal }).catch(() => null);
    if (!res || signal.aborted || cur.current?.version !== d.version || res.version !== d.version || res.stages.length !== d.stages.length) {
      if (loadedGeom.current === key) loadedGeom.current = "";
      return;
    }
    d.stages.forEach((s, i) => {
      const g = s.restDay ? undefined : res.stages[i];
      const pts = g ? decodePolyline(g.polyline) : [];
      out.push(dayGeom(s.index, s.restDay, pts, g?.elevationKnown ? g.elevationsM : [], s.distanceM, start));
      start += s.distanceM;
    });
    // A rest day sits where the day before it ends.
    out.forEach((g, i) => {
      if (g.rest && i > 0 && out[i - 1].pts.length) g.pts = [out[i - 1].pts[out[i - 1].pts.length - 1]];
    });
    setGeoms(out);
  };

  // Every day in full (riding time, alerts, nights, waypoints): fetched
  // after any change in one ListStages call, newest request wins.
  const loadDetails = async (d: TripDigest) => {
    if (recutting(d)) return;
    const seq = ++detailsSeq.current;
    const signal = fresh("details");
    const res = await api.trips.listStages({ tripId: id }, { signal }).catch(() => null);
    // A newer load, a failure (the next load has them) or days of another
    // state than the page shows (an edit landed meanwhile; the load for
    // that state follows): nothing to show from this one.
    const now = cur.current ?? d;
    if (!res || seq !== detailsSeq.current || res.version !== now.version || res.stages.length !== now.stages.length) return;
    setDetails(new Map(res.stages.map((st, i) => [i, st])));
  };

  // overtaken: the stream has delivered, since the call that read d was
  // sent (when it had delivered `since` messages), a state of d's version
  // or a later one. That state may be older or newer than d; either way
  // the stream is the one that ends on the newest, so d is not applied.
  const overtaken = (since: number, d: TripDigest) => streamed.current.n !== since && streamed.current.version >= d.version;

  // lastRead is the trip as the last reload read it, shown or overtaken:
  // after a write answered without the trip it is the state the write made,
  // which a notice of another client's write after it is diffed against.
  const lastRead = useRef<TripDigest | null>(null);
  const reload = async () => {
    const since = streamed.current.n;
    const res = await api.trips.getTrip({ tripId: id });
    lastRead.current = res.trip!;
    if (overtaken(since, res.trip!)) return cur.current!;
    apply(res.trip!);
    void loadGeometry(res.trip!);
    void loadDetails(res.trip!);
    return res.trip!;
  };

  // Live updates: WatchTrip sends the state, then every change (progress
  // while computing, labels and analysis arriving, another tab's edits).
  useEffect(() => {
    const abort = new AbortController();
    let timer = 0;
    (async () => {
      let resume = "";
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          for await (const msg of api.watch.watchTrip({ tripId: id, resumeToken: resume }, { signal: abort.signal })) {
            resume = msg.resumeToken;
            attempt = 0;
            if (!msg.trip) {
              setGone(true);
              return;
            }
            const s = streamed.current;
            streamed.current = { n: s.n + 1, version: msg.trip.version > s.version ? msg.trip.version : s.version };
            // The stream can lag behind this page's own write: a message
            // older than what the page shows is already superseded.
            if (cur.current && msg.trip.version < cur.current.version) continue;
            apply(msg.trip, true);
            void loadGeometry(msg.trip);
            clearTimeout(timer);
            timer = window.setTimeout(() => void loadDetails(msg.trip!), 150);
          }
        } catch (e) {
          const f = failure(e);
          if (f.code === "aborted" || abort.signal.aborted) return;
          if (f.code === "not_found") {
            setGone(true);
            return;
          }
          // Without the stream (a proxy that buffers it, a network
          // error) the page still loads and works; the stream is retried.
          if (!cur.current) await reload().catch((e2) => setError(failure(e2)));
          else if (f.code !== "unavailable" && f.code !== "unknown") setError(f);
        }
        await new Promise((r) => setTimeout(r, Math.min(10000, 500 * 2 ** attempt)));
      }
    })();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [id]);

  const execute = async (edit: Edit, undoable: boolean, resetsUndo = false): Promise<boolean> => {
    const d = cur.current!;
    writing.current++;
    reads.current.details?.abort();
    reads.current.geometry?.abort();
    loadedGeom.current = "";
    try {
      const since = streamed.current.n;
      const res = await edit(d.version);
      ours.current.add(res.version);
      if (!res.versionUnchanged && undoable) {
        undo.current.push({ from: d.version, to: res.version });
        redo.current = [];
      }
      if (!res.versionUnchanged && resetsUndo) {
        undo.current = [];
        redo.current = [];
      }
      let fresh: TripDigest;
      if (!res.trip) fresh = await reload();
      else if (overtaken(since, res.trip)) fresh = cur.current!;
      else {
        apply(res.trip);
        fresh = res.trip;
      }
      void loadGeometry(fresh);
      void loadDetails(fresh);
      if (fresh.version > res.version && !ours.current.has(fresh.version)) {
        // Someone else wrote after this page while its write was in flight
        // (the stream stays quiet about changes then): say so, as the
        // stream does, and start a new undo history.
        const after = res.trip ?? (lastRead.current?.version === res.version ? lastRead.current : null);
        setNotice(t("changedElsewhere", { from: String(res.version), to: String(fresh.version), what: diffText(after, fresh) }));
        undo.current = [];
        redo.current = [];
      } else setNotice(t("saved", { v: String(res.version) }));
      setError(null);
      bump((n) => n + 1);
      return true;
    } catch (e) {
      const f = failure(e);
      if (isVersionConflict(f)) {
        const before = cur.current;
        const fresh = await reload();
        setNotice(t("conflict", { from: String(before?.version ?? 0n), to: String(fresh.version), what: diffText(before, fresh) }));
        undo.current = [];
        redo.current = [];
        bump((n) => n + 1);
      } else {
        setError(f);
      }
      return false;
    } finally {
      writing.current--;
    }
  };

  const actions: TripActions = {
    run: async (edit, opts = {}) => {
      if (!opts.preview) return execute(edit, opts.undoable ?? false, opts.resetsUndo);
      try {
        const p = await opts.preview(cur.current!.version);
        const losing = (p.impact?.accommodationsLost.length ?? 0) > 0 || (p.impact?.waypointsLost ?? 0) > 0;
        if (opts.onlyIfLosing && !losing) return await execute(edit, opts.undoable ?? false, opts.resetsUndo);
        return await new Promise<boolean>((resolve) =>
          setPending({
            title: opts.confirmTitle ?? t("confirm"),
            impact: p.impact,
            go: () => void execute(edit, opts.undoable ?? false, opts.resetsUndo).then(resolve),
          }),
        );
      } catch (e) {
        const f = failure(e);
        if (isVersionConflict(f)) await execute(edit, false); // reloads and says what changed
        else setError(f);
        return false;
      }
    },
    pick: setPicked,
    select: (day) => {
      setSelected(day);
      setPicked(null);
    },
    reloadDetails: () => cur.current && void loadDetails(cur.current),
  };

  const restore = async (layout: bigint, word: "undone" | "redone") => {
    const ok = await actions.run((v) => api.edits.restoreStageLayout({ tripId: id, version: v, layoutVersion: layout, idempotencyKey: idem() }), {
      confirmTitle: t(word === "undone" ? "undoLabel" : "redoLabel"),
      preview: (v) => api.edits.restoreStageLayout({ tripId: id, version: v, layoutVersion: layout, validateOnly: true }),
      onlyIfLosing: true,
    });
    if (ok) setNotice(t(word, { v: String(cur.current!.version) }));
    return ok;
  };
  const doUndo = async () => {
    const e = undo.current.pop();
    if (!e) return setNotice(t("nothingToUndo"));
    if (await restore(e.from, "undone")) redo.current.push(e);
    else undo.current.push(e);
    bump((n) => n + 1);
  };
  const doRedo = async () => {
    const e = redo.current.pop();
    if (!e) return;
    if (await restore(e.to, "redone")) undo.current.push(e);
    else redo.current.push(e);
    bump((n) => n + 1);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest("input, textarea, select, dialog")) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") {
        e.preventDefault();
        void (e.shiftKey ? doRedo() : doUndo());
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  const settled = !!digest && !digest.partial && digest.status !== TripStatus.COMPUTING;
  useEffect(() => {
    if (!justCreated || !settled) return;
    const h = setTimeout(() => {
      setJustCreated(false);
      history.replaceState(null, "");
    }, 4000);
    return () => clearTimeout(h);
  }, [justCreated, settled]);

  if (gone) {
    return (
      <main class="trip-page" id="main">
        <p class="error" role="alert">{t("notFound")}</p>
        <button type="button" onClick={() => ctx.navigate("/app/")}>{t("back")}</button>
      </main>
    );
  }
  if (!digest) {
    return (
      <main class="trip-page" id="main">
        <ErrorNote error={error} />
        <p aria-busy="true">{t("loading")}</p>
      </main>
    );
  }
  const computing = digest.partial || digest.status === TripStatus.COMPUTING;

  const locked = digest.settings?.locked ?? false;
  return (
    <main class="trip-page" id="main">
      <div class="trip-head">
        <button type="button" class="link back" onClick={() => ctx.navigate("/app/")}>← {t("back")}</button>
        <h1 class="trip-title">{digest.title || "—"}</h1>
        <p class="trip-facts">
          {km(digest.distanceM)} · {digest.elevationKnown ? `↑ ${num(digest.ascentM)} m · ` : ""}
          {t("days", { n: digest.stages.length })}
          {" · "}
          <span class="version" title={t("version", { v: String(digest.version) })}>
            v<span data-testid="trip-version">{String(digest.version)}</span>
          </span>
          {locked ? <> · <span class="badge">{t("locked")}</span></> : null}
        </p>
        <div class="toolbar" role="toolbar" aria-label={digest.title}>
          <button type="button" onClick={() => void doUndo()} disabled={undo.current.length === 0} aria-label={t("undoLabel")} data-testid="undo">↶ {t("undo")}</button>
          <button type="button" onClick={() => void doRedo()} disabled={redo.current.length === 0} aria-label={t("redoLabel")} data-testid="redo">↷ {t("redo")}</button>
          <button type="button" onClick={() => setDialog("settings")} data-testid="open-settings">{t("settings")}</button>
          <button type="button" class="primary" onClick={() => setDialog("export")} data-testid="open-export">{t("exportShare")}</button>
        </div>
      </div>
      <div class="live" role="status" aria-live="polite" data-testid="notice">{notice}</div>
      <ErrorNote error={error} />
      {digest.status === TripStatus.COMPUTING || digest.status === TripStatus.FAILED || justCreated || digest.stages.length === 0 ? (
        <ProgressPanel digest={digest} />
      ) : computing ? (
        <InlineProgress digest={digest} />
      ) : null}
      <div class="planner">
        <div class="visual">
          <MapView cfg={ctx.cfg} geoms={geoms} details={details} selected={selected} hover={hover} picked={picked}
            onHover={setHover} onPick={(p) => { setPicked(p); setSelected(p.day); }} onSelect={(d) => actions.select(d)} />
          {picked ? <PickedBar digest={digest} picked={picked} actions={actions} ctx={ctx} id={id} /> : null}
          <Profile geoms={geoms} elevationKnown={digest.elevationKnown} selected={selected} hover={hover} picked={picked}
            onHover={setHover} onPick={(p) => { setPicked(p); setSelected(p.day); }} />
        </div>
        <DayList ctx={ctx} id={id} digest={digest} details={details} selected={selected} picked={picked} actions={actions} />
      </div>
      {pending ? (
        <Confirm title={pending.title} impact={pending.impact} danger
          onConfirm={() => { const p = pending; setPending(null); p.go(); }} onCancel={() => setPending(null)} />
      ) : null}
      {dialog === "settings" ? <SettingsDialog ctx={ctx} id={id} digest={digest} actions={actions} onClose={() => setDialog("")} /> : null}
      {dialog === "export" ? <ExportShareDialog ctx={ctx} id={id} digest={digest} actions={actions} onClose={() => setDialog("")} onChange={() => void reload()} /> : null}
    </main>
  );
}

const partNames: [keyof Omit<NonNullable<TripDigest["progress"]>, "$typeName">, Key][] = [
  ["route", "partRoute"], ["stages", "partStages"], ["labels", "partLabels"], ["analysis", "partAnalysis"], ["accommodations", "partAccommodations"],
];
const stateKey: Record<number, Key> = {
  [ComputationState.UNSPECIFIED]: "statePending", [ComputationState.PENDING]: "statePending", [ComputationState.RUNNING]: "stateRunning",
  [ComputationState.DONE]: "stateDone", [ComputationState.FAILED]: "stateFailed", [ComputationState.UNAVAILABLE]: "stateUnavailable",
};

function ProgressPanel({ digest }: { digest: TripDigest }) {
  return (
    <section class="progress" data-testid="progress" aria-label={t("progress")} aria-live="polite">
      <h2 class="sub">{t("progress")}</h2>
      <ul>
        {partNames.map(([k, label]) => {
          const part = digest.progress?.[k] as PartProgress | undefined;
          if (!part) return null;
          const pct = part.total > 0 ? Math.round((100 * part.done) / part.total) : part.state === ComputationState.DONE ? 100 : 0;
          return (
            <li class={`part st${part.state}`} data-part={k}>
              <span class="part-name">{t(label)}</span>
              <progress max={100} value={pct} aria-label={t(label)} />
              <span class="part-state">
                {t(stateKey[part.state])}
                {part.total > 0 ? ` ${part.done}/${part.total}` : ""}
                {part.reason ? ` — ${part.reason}` : ""}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

// InlineProgress is the one-line progress of a trip that is being updated
// after an edit (new days labelled and analysed again), so the page does
// not jump.
function InlineProgress({ digest }: { digest: TripDigest }) {
  const busy = partNames
    .map(([k, label]) => [digest.progress?.[k] as PartProgress | undefined, label] as const)
    .filter(([part]) => part && part.state !== ComputationState.DONE && part.state !== ComputationState.UNAVAILABLE)
    .map(([part, label]) => `${t(label)} ${part!.total > 0 ? `${part!.done}/${part!.total}` : t(stateKey[part!.state])}`);
  if (busy.length === 0) return null;
  return (
    <p class="progress-inline" role="status">
      {t("updating", { what: busy.join(" · ") })}
    </p>
  );
}

// PickedBar is what can be done at a point picked on the map or the
// profile: end its day there, or put a waypoint there.
function PickedBar({ ctx, id, digest, picked, actions }: { ctx: Ctx; id: string; digest: TripDigest; picked: RoutePoint; actions: TripActions }) {
  const day = t("day", { n: picked.day + 1 });
  const st = digest.stages[picked.day];
  const canCut = st && !st.restDay && picked.dayM > 100 && picked.dayM < st.distanceM - 100;
  return (
    <div class="picked" data-testid="picked" role="group" aria-label={t("pointAt", { day, km: num(picked.dayM / 1000, 1) })}>
      <span class="swatch" style={{ background: dayColour(picked.day) }} aria-hidden="true" />
      <strong>{t("pointAt", { day, km: num(picked.dayM / 1000, 1) })}</strong>
      {picked.ele !== undefined ? <span> · {num(picked.ele)} m</span> : null}
      <div class="picked-actions">
        <button type="button" class="primary" disabled={!canCut} data-testid="cut-here"
          onClick={() => void actions.run((v) => ctx.api.edits.updateStage({ tripId: id, version: v, stageIndex: picked.day,
            change: { case: "distanceKm", value: Math.round(picked.dayM / 100) / 10 }, idempotencyKey: idem() }), { undoable: true }).then(() => actions.pick(null))}>
          {t("endDayHere", { day })}
        </button>
        <button type="button" onClick={() => { actions.select(picked.day); actions.pick(picked); document.getElementById(`wp-name-${picked.day}`)?.focus(); }}>
          {t("addWaypointHere")}
        </button>
        <button type="button" class="link" onClick={() => actions.pick(null)}>{t("cancel")}</button>
      </div>
    </div>
  );
}
