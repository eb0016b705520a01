import { useEffect, useRef, useState } from "preact/hooks";
import { failure, idem, type ApiFailure } from "../api";
import { km } from "../format";
import { TripStatus, type TripSummary } from "../gen/roadbook/v1/trip_pb";
import type { Impact } from "../gen/roadbook/v1/impact_pb";
import { num, t } from "../i18n";
import type { Ctx } from "./App";
import { Confirm, ErrorNote, Modal } from "./common";

const statusKey = {
  [TripStatus.UNSPECIFIED]: "statusComputing",
  [TripStatus.COMPUTING]: "statusComputing",
  [TripStatus.DRAFT]: "statusDraft",
  [TripStatus.READY]: "statusReady",
  [TripStatus.FAILED]: "statusFailed",
} as const;

export function TripList({ ctx }: { ctx: Ctx }) {
  const [trips, setTrips] = useState<TripSummary[] | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [renaming, setRenaming] = useState<TripSummary | null>(null);
  const [deleting, setDeleting] = useState<{ trip: TripSummary; impact?: Impact } | null>(null);

  const load = async () => {
    try {
      const all: TripSummary[] = [];
      let pageToken = "";
      do {
        const res = await ctx.api.trips.listTrips({ pageSize: 100, pageToken });
        all.push(...res.trips);
        pageToken = res.nextPageToken;
      } while (pageToken);
      setTrips(all);
      setError(null);
    } catch (e) {
      setError(failure(e));
    }
  };
  useEffect(() => {
    document.title = `${t("yourTrips")} · Roadbook`;
    void load();
  }, []);

  const duplicate = async (tr: TripSummary) => {
    try {
      const res = await ctx.api.trips.duplicateTrip({ tripId: tr.tripId, title: t("copyOf", { title: tr.title }), idempotencyKey: idem() });
      ctx.navigate(`/app/trips/${res.tripId}`);
    } catch (e) {
      setError(failure(e));
    }
  };
  const askDelete = async (tr: TripSummary) => {
    try {
      const res = await ctx.api.trips.deleteTrip({ tripId: tr.tripId, version: tr.version, validateOnly: true });
      setDeleting({ trip: tr, impact: res.impact });
    } catch (e) {
      setError(failure(e));
    }
  };
  const doDelete = async () => {
    const d = deleting!;
    setDeleting(null);
    try {
      await ctx.api.trips.deleteTrip({ tripId: d.trip.tripId, version: d.trip.version, idempotencyKey: idem() });
      await load();
    } catch (e) {
      setError(failure(e));
      await load();
    }
  };

  return (
    <main class="list-page" id="main">
      <h1>{t("yourTrips")}</h1>
      <CreateTrip ctx={ctx} />
      <ErrorNote error={error} />
      {trips === null ? (
        <p aria-busy="true">{t("loading")}</p>
      ) : trips.length === 0 ? (
        <p class="empty">{t("noTrips")}</p>
      ) : (
        <ul class="trips" data-testid="trip-list">
          {trips.map((tr) => (
            <li class="trip-card" data-testid="trip-card" data-trip-id={tr.tripId}>
              <a class="trip-title" href={`/app/trips/${tr.tripId}`} onClick={(e) => { e.preventDefault(); ctx.navigate(`/app/trips/${tr.tripId}`); }}>
                {tr.title || "—"}
              </a>
              <p class="facts">
                {km(tr.distanceM)} · {tr.elevationKnown ? `↑ ${num(tr.ascentM)} m · ` : ""}
                {t("days", { n: tr.stageCount })} · <span class={`status s${tr.status}`}>{t(statusKey[tr.status])}</span>
                {tr.shared ? <> · <span class="badge">{t("shared")}</span></> : null}
                {tr.startDate ? ` · ${tr.startDate}${tr.endDate ? ` → ${tr.endDate}` : ""}` : ""}
              </p>
              <div class="row-actions">
                <button type="button" onClick={() => setRenaming(tr)} aria-label={`${t("rename")}: ${tr.title}`}>{t("rename")}</button>
                <button type="button" onClick={() => void duplicate(tr)} aria-label={`${t("duplicate")}: ${tr.title}`}>{t("duplicate")}</button>
                <button type="button" class="danger" onClick={() => void askDelete(tr)} aria-label={`${t("delete")}: ${tr.title}`}>{t("delete")}</button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {renaming ? <Rename ctx={ctx} trip={renaming} onDone={async () => { setRenaming(null); await load(); }} /> : null}
      {deleting ? <Confirm title={t("deleteTrip")} impact={deleting.impact} danger onConfirm={() => void doDelete()} onCancel={() => setDeleting(null)} /> : null}
    </main>
  );
}

function Rename({ ctx, trip, onDone }: { ctx: Ctx; trip: TripSummary; onDone: () => void }) {
  const [title, setTitle] = useState(trip.title);
  const [error, setError] = useState<ApiFailure | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await ctx.api.trips.updateTripSettings({ tripId: trip.tripId, version: trip.version, settings: {}, title, idempotencyKey: idem() });
      onDone();
    } catch (err) {
      setError(failure(err));
    }
  };
  return (
    <Modal title={t("renameTrip", { title: trip.title })} onClose={onDone}>
      <form onSubmit={submit}>
        <label>
          {t("title")}
          <input value={title} required maxLength={255} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" onClick={onDone}>{t("cancel")}</button>
          <button type="submit" class="primary">{t("save")}</button>
        </div>
      </form>
    </Modal>
  );
}

// CreateTrip starts a trip from a dropped (or chosen) GPX file or a route
// link, then opens it: its page follows the computation live.
function CreateTrip({ ctx }: { ctx: Ctx }) {
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState("");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<ApiFailure | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const upload = async (file: File) => {
    if (!/\.gpx$/i.test(file.name)) {
      setError({ code: "invalid_argument", message: t("notGpx", { name: file.name }) });
      return;
    }
    setBusy(t("uploading", { name: file.name }));
    setError(null);
    try {
      const content = new Uint8Array(await file.arrayBuffer());
      const type = ["application/gpx+xml", "application/xml", "text/xml", "text/plain"].includes(file.type) ? file.type : "";
      const res = await ctx.api.trips.createTripFromUpload({ filename: file.name, contentType: type, content, idempotencyKey: idem() });
      ctx.navigate(`/app/trips/${res.tripId}`, { created: true });
    } catch (e) {
      setError(failure(e));
    } finally {
      setBusy("");
    }
  };
  const fromUrl = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const res = await ctx.api.trips.createTripFromUrl({ url: url.trim(), idempotencyKey: idem() });
      ctx.navigate(`/app/trips/${res.tripId}`, { created: true });
    } catch (err) {
      setError(failure(err));
    }
  };
  return (
    <section class="create" aria-labelledby="create-h">
      <h2 id="create-h">{t("newTrip")}</h2>
      <div
        class={`drop ${over ? "over" : ""}`}
        data-testid="dropzone"
        onDragOver={(e) => { e.preventDefault(); setOver(true); }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const f = e.dataTransfer?.files[0];
          if (f) void upload(f);
        }}
      >
        <p>{busy || t("dropGpx")}</p>
        <button type="button" onClick={() => input.current?.click()} disabled={!!busy}>{t("chooseGpx")}</button>
        <input ref={input} type="file" accept=".gpx,application/gpx+xml" class="sr-only" tabIndex={-1} aria-label={t("chooseGpx")} data-testid="gpx-input"
          onChange={(e) => { const f = (e.currentTarget as HTMLInputElement).files?.[0]; if (f) void upload(f); }} />
      </div>
      <form class="from-url" onSubmit={fromUrl}>
        <label for="route-url">{t("orLink")}</label>
        <div class="inline">
          <input id="route-url" type="url" required placeholder="https://www.komoot.com/tour/123456" value={url}
            onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" class="primary">{t("import")}</button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
