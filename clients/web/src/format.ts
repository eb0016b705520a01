import { num, t } from "./i18n";
import type { Duration } from "@bufbuild/protobuf/wkt";

export function km(m: number): string {
  return t("km", { n: num(m / 1000, 1) });
}

export function metres(m: number): string {
  return t("m", { n: num(m) });
}

export function hoursMinutes(d: Duration | undefined): { h: number; m: number } {
  const s = Number(d?.seconds ?? 0n);
  return { h: Math.floor(s / 3600), m: Math.round((s % 3600) / 60) };
}

export function clock(minuteOfDay: number): string {
  const m = minuteOfDay % 1440;
  return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}`;
}

// humanize turns a proto field name into words ("comfort_index" →
// "Comfort index"), for fields this client renders without knowing them.
export function humanize(name: string): string {
  const s = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
