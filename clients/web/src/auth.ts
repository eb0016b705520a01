// Sign-in: OpenID Connect authorization code with PKCE (oidc-client-ts)
// against the configured issuer. The code comes back in the URL fragment,
// which browsers never send to a server; tokens live in session storage
// (this tab only) and travel only in the Authorization header.
import { UserManager, WebStorageStateStore, type User } from "oidc-client-ts";
import type { PlannerConfig } from "./config";

export class Auth {
  private mgr: UserManager | null;
  private user: User | null = null;

  constructor(cfg: PlannerConfig) {
    const o = cfg.oidc;
    this.mgr = o.issuer
      ? new UserManager({
          authority: o.issuer,
          client_id: o.clientId,
          redirect_uri: `${location.origin}/app/`,
          post_logout_redirect_uri: `${location.origin}/app/`,
          response_type: "code",
          response_mode: "fragment",
          scope: o.scope,
          extraQueryParams: o.audience ? { audience: o.audience } : {},
          userStore: new WebStorageStateStore({ store: sessionStorage }),
          stateStore: new WebStorageStateStore({ store: sessionStorage }),
          loadUserInfo: false,
          automaticSilentRenew: false,
          monitorSession: false,
        })
      : null;
  }

  get configured(): boolean {
    return this.mgr !== null;
  }

  // init finishes a sign-in that comes back from the issuer (and removes
  // the code from the address bar), or finds this tab's session.
  async init(): Promise<boolean> {
    if (!this.mgr) return false;
    if (/(^#|&)(code|error)=/.test(location.hash)) {
      const user = await this.mgr.signinRedirectCallback(location.href);
      const back = typeof user.state === "string" && user.state.startsWith("/app/") ? user.state : "/app/";
      history.replaceState(null, "", back);
      this.user = user;
      return true;
    }
    const u = await this.mgr.getUser();
    if (u && !u.expired) {
      this.user = u;
      return true;
    }
    return false;
  }

  async signIn(): Promise<void> {
    await this.mgr?.signinRedirect({ state: location.pathname + location.search });
  }

  async signOut(): Promise<void> {
    await this.mgr?.removeUser();
    this.user = null;
  }

  get subject(): string {
    return this.user?.profile.sub ?? "";
  }

  token(): string {
    return this.user?.access_token ?? "";
  }
}
