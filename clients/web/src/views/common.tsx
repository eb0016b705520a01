import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { Impact } from "../gen/roadbook/v1/impact_pb";
import { t } from "../i18n";
import type { ApiFailure } from "../api";

// Modal is a native <dialog> opened modally: the browser keeps focus inside
// and Escape closes it.
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren; testid?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      props.onClose();
    };
    d.addEventListener("cancel", onCancel);
    return () => d.removeEventListener("cancel", onCancel);
  }, []);
  return (
    <dialog ref={ref} class="modal" aria-labelledby="modal-title" data-testid={props.testid}>
      <h2 id="modal-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}

// ImpactList shows what a destructive write would lose, in the sentences
// Roadbook wrote (the impact summary).
export function ImpactList(props: { impact?: Impact }) {
  const s = props.impact?.summary ?? [];
  if (s.length === 0) return <p>{t("nothingLost")}</p>;
  return (
    <ul class="impact" data-testid="impact">
      {s.map((line) => (
        <li>{line}</li>
      ))}
    </ul>
  );
}

// Confirm asks before a destructive write, showing its impact.
export function Confirm(props: { title: string; impact?: Impact; onConfirm: () => void; onCancel: () => void; danger?: boolean }) {
  return (
    <Modal title={props.title} onClose={props.onCancel} testid="confirm">
      <h3 class="sub">{t("impactTitle")}</h3>
      <ImpactList impact={props.impact} />
      <div class="actions">
        <button type="button" onClick={props.onCancel}>{t("cancel")}</button>
        <button type="button" class={props.danger ? "danger" : "primary"} onClick={props.onConfirm} data-testid="confirm-ok">
          {t("confirm")}
        </button>
      </div>
    </Modal>
  );
}

export function ErrorNote(props: { error: ApiFailure | null }) {
  if (!props.error || props.error.code === "aborted") return null;
  return (
    <p class="error" role="alert">
      {t("errorPrefix", { code: props.error.code, message: props.error.message })}
    </p>
  );
}

// download saves bytes as a file through a temporary blob link.
export function download(name: string, type: string, bytes: Uint8Array): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
