// Whole-trip downloads and the share link: share, copy, open, stop sharing
// (its impact shown first).
import { useState } from "preact/hooks";
import { failure, idem, type ApiFailure } from "../api";
import { ExportFormat } from "../gen/roadbook/v1/export_pb";
import type { TripDigest } from "../gen/roadbook/v1/trip_pb";
import type { Impact } from "../gen/roadbook/v1/impact_pb";
import { t } from "../i18n";
import type { Ctx } from "./App";
import { Confirm, download, ErrorNote, Modal } from "./common";
import type { TripActions } from "./TripPage";

export function ExportShareDialog({ ctx, id, digest, onClose, onChange }: { ctx: Ctx; id: string; digest: TripDigest; actions: TripActions; onClose: () => void; onChange: () => void }) {
  const [error, setError] = useState<ApiFailure | null>(null);
  const [copied, setCopied] = useState(false);
  const [unsharing, setUnsharing] = useState<Impact | undefined | null>(null);
  const share = digest.share;

  const exportTrip = async (format: ExportFormat) => {
    try {
      const res = await ctx.api.exports.exportTrip({ tripId: id, format });
      if (res.file) download(res.file.filename, res.file.contentType, res.file.content);
    } catch (e) {
      setError(failure(e));
    }
  };
  const doShare = async () => {
    try {
      await ctx.api.shares.shareTrip({ tripId: id, version: digest.version, idempotencyKey: idem() });
      onChange();
    } catch (e) {
      setError(failure(e));
    }
  };
  const askUnshare = async () => {
    try {
      const res = await ctx.api.shares.unshareTrip({ tripId: id, version: digest.version, validateOnly: true });
      setUnsharing(res.impact);
    } catch (e) {
      setError(failure(e));
    }
  };
  const doUnshare = async () => {
    setUnsharing(null);
    try {
      await ctx.api.shares.unshareTrip({ tripId: id, version: digest.version, idempotencyKey: idem() });
      onChange();
    } catch (e) {
      setError(failure(e));
    }
  };
  const copy = async () => {
    if (!share) return;
    try {
      await navigator.clipboard.writeText(share.url);
    } catch {
      (document.getElementById("share-url") as HTMLInputElement | null)?.select();
      document.execCommand("copy");
    }
    setCopied(true);
  };

  if (unsharing !== null) {
    return <Confirm title={t("unshare")} impact={unsharing} danger onConfirm={() => void doUnshare()} onCancel={() => setUnsharing(null)} />;
  }
  return (
    <Modal title={t("exportShare")} onClose={onClose} testid="export-share">
      <section>
        <h3 class="sub">{t("wholeTrip")}</h3>
        <div class="buttons">
          <button type="button" data-testid="export-gpx" onClick={() => void exportTrip(ExportFormat.GPX)}>{t("download", { fmt: "GPX" })}</button>
          <button type="button" data-testid="export-fit" onClick={() => void exportTrip(ExportFormat.FIT)}>{t("download", { fmt: "FIT" })}</button>
          <button type="button" data-testid="export-text" onClick={() => void exportTrip(ExportFormat.TEXT)}>{t("download", { fmt: t("text") })}</button>
        </div>
      </section>
      <section>
        <h3 class="sub">{t("shareLink")}</h3>
        {share ? (
          <>
            <label for="share-url" class="sr-only">{t("shareLink")}</label>
            <input id="share-url" readOnly value={share.url} data-testid="share-url" onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
            <div class="buttons">
              <button type="button" onClick={() => void copy()}>{t("copyLink")}</button>
              <a class="button" href={share.url} target="_blank" rel="noopener noreferrer" data-testid="open-share">{t("openShare")}</a>
              <button type="button" class="danger" onClick={() => void askUnshare()} data-testid="unshare">{t("unshare")}</button>
            </div>
            <p role="status">{copied ? t("copied") : ""}</p>
          </>
        ) : (
          <>
            <p>{t("notShared")}</p>
            <button type="button" class="primary" onClick={() => void doShare()} data-testid="share">{t("share")}</button>
          </>
        )}
      </section>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={onClose}>{t("close")}</button>
      </div>
    </Modal>
  );
}
