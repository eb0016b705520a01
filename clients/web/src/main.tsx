// The planner's entry point: configuration, sign-in, then the app.
import "leaflet/dist/leaflet.css";
import "./styles.css";
import { render } from "preact";
import { loadConfig } from "./config";
import { Auth } from "./auth";
import { createApi } from "./api";
import { App } from "./views/App";
import { lang, t } from "./i18n";

async function main(): Promise<void> {
  const root = document.getElementById("app")!;
  document.documentElement.lang = lang.get();
  try {
    const cfg = await loadConfig();
    const auth = new Auth(cfg);
    if (!auth.configured) {
      root.textContent = t("signInNotConfigured");
      return;
    }
    if (!(await auth.init())) {
      await auth.signIn(); // navigates to the issuer
      return;
    }
    const api = createApi(cfg.apiUrl || location.origin, () => auth.token(), () => void auth.signIn());
    root.textContent = "";
    render(<App api={api} auth={auth} cfg={cfg} />, root);
  } catch (e) {
    root.textContent = t("signInFailed", { message: e instanceof Error ? e.message : String(e) });
  }
}

void main();
