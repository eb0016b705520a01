import { useEffect, useState } from "preact/hooks";
import type { Api } from "../api";
import type { Auth } from "../auth";
import type { PlannerConfig } from "../config";
import { lang, setLang, t } from "../i18n";
import { useSignal } from "../store";
import { TripList } from "./TripList";
import { TripPage } from "./TripPage";

export interface Ctx {
  api: Api;
  auth: Auth;
  cfg: PlannerConfig;
  // navigate shows another view; state rides along in the history entry
  // (e.g. that a trip was just created here).
  navigate: (path: string, state?: Record<string, unknown>) => void;
}

// route is the view a path names: /app/ (the trips) or /app/trips/<id>.
function route(path: string): { view: "list" } | { view: "trip"; id: string } {
  const m = /^\/app\/trips\/([0-9a-f-]{36})\/?$/.exec(path);
  return m ? { view: "trip", id: m[1] } : { view: "list" };
}

export function App(props: { api: Api; auth: Auth; cfg: PlannerConfig }) {
  const [path, setPath] = useState(location.pathname);
  const l = useSignal(lang);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const navigate = (p: string, state?: Record<string, unknown>) => {
    history.pushState(state ?? null, "", p);
    setPath(p);
    scrollTo(0, 0);
  };
  const ctx: Ctx = { ...props, navigate };
  const r = route(path);
  return (
    <div class="shell" key={l}>
      <header class="top">
        <a class="brand" href="/app/" onClick={(e) => { e.preventDefault(); navigate("/app/"); }}>
          {t("appName")}
        </a>
        <div class="top-right">
          <label class="lang">
            <span class="sr-only">{t("language")}</span>
            <select value={l} onChange={(e) => setLang((e.currentTarget as HTMLSelectElement).value as "en" | "fr")}>
              <option value="en">English</option>
              <option value="fr">Français</option>
            </select>
          </label>
          <span class="who" title={t("signedInAs", { user: props.auth.subject })}>{props.auth.subject}</span>
          <button type="button" class="link" onClick={async () => { await props.auth.signOut(); location.assign("/app/"); }}>
            {t("signOut")}
          </button>
        </div>
      </header>
      {r.view === "trip" ? <TripPage ctx={ctx} id={r.id} key={r.id} /> : <TripList ctx={ctx} />}
    </div>
  );
}
