// Sign in (optional): the OpenID Connect authorization code flow with PKCE (oidc-client-ts),
// when the server's /web-config.json names an issuer and this client's id; without one the page
// offers no Sign in and plays with seat tokens as ever.
//
// Signed in, every call carries the access token as `Authorization: Bearer` (and a realtime
// session's hello its token field), so the server binds seats to the player and gives them back
// on any device, without seat tokens. The tokens stay in this tab's sessionStorage, like seat
// tokens, and are never logged or put in a URL. An access token about to expire is renewed with
// the refresh token when the provider gave one; otherwise, once it has expired, the page is
// signed out and says so, and Sign in starts over (the provider's own session usually makes that
// one click).
import { UserManager, WebStorageStateStore, type User } from "oidc-client-ts";

/** The sign-in settings of /web-config.json (scopa.transport._webui.WebSignIn). */
export interface SignInConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
  readonly extraParams: Readonly<Record<string, string>>;
}

/** Where the server serves the page's settings. */
const CONFIG_PATH = "/web-config.json";
/** Renew an access token this many seconds before it expires. */
const RENEW_BEFORE_S = 20;

/** The sign-in settings the server gives the page, or undefined: no sign-in. */
export async function loadSignInConfig(): Promise<SignInConfig | undefined> {
  try {
    const response = await fetch(CONFIG_PATH, { cache: "no-cache" });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { oidc?: SignInConfig };
    const oidc = body.oidc;
    return oidc && oidc.issuer && oidc.clientId ? oidc : undefined;
  } catch {
    return undefined; // an older server, or none: the page works without sign-in
  }
}

/** What the flow carries through the provider's pages: where the page was. */
interface ReturnState {
  readonly hash: string;
}

/** What changed: who is signed in, their access token, or only the notice to show. */
export type Change = "state" | "token" | "notice";

/** The name a player is shown by: the ID token's name, else preferred_username. */
export function displayName(profile: Readonly<Record<string, unknown>>): string {
  for (const claim of ["name", "preferred_username", "nickname", "given_name"]) {
    const value = profile[claim];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return "a signed-in player";
}

/** The page's sign-in: the signed-in player (if any), their access token, Sign in and out. */
export class SignIn {
  private readonly manager: UserManager;
  private user: User | null = null;
  private renewing: Promise<User | null> | undefined;
  private readonly listeners = new Set<(change: Change) => void>();
  /** Why the player is no longer signed in, to show once (e.g. the sign-in expired). */
  notice = "";
  /** Access tokens renewed in this page (data-renewals: tests wait for one). */
  renewals = 0;

  constructor(config: SignInConfig) {
    const here = `${window.location.origin}/`;
    this.manager = new UserManager({
      authority: config.issuer,
      client_id: config.clientId,
      redirect_uri: here,
      post_logout_redirect_uri: here,
      response_type: "code",
      scope: config.scope,
      extraQueryParams: { ...config.extraParams },
      loadUserInfo: false,
      automaticSilentRenew: false, // renewed here, by refresh token only (no iframes: see CSP)
      accessTokenExpiringNotificationTimeInSeconds: RENEW_BEFORE_S,
      userStore: new WebStorageStateStore({ store: window.sessionStorage }),
      stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    });
    this.manager.events.addAccessTokenExpiring(() => void this.renew());
    this.manager.events.addAccessTokenExpired(() => void this.expired());
  }

  /**
   * Completes a sign-in (or sign-out) coming back from the provider, then loads the player this
   * tab holds. Returns the hash to show: the one the page had when Sign in was pressed.
   */
  async start(): Promise<string | undefined> {
    const query = new URLSearchParams(window.location.search);
    let hash: string | undefined;
    if (query.has("state") || query.has("error")) {
      try {
        if (query.has("code") || query.has("error")) {
          const user = await this.manager.signinRedirectCallback();
          hash = (user.state as ReturnState | undefined)?.hash;
        } else {
          const response = await this.manager.signoutRedirectCallback();
          hash = (response.userState as ReturnState | undefined)?.hash;
        }
      } catch (failure) {
        this.notice = `Signing in failed: ${failure instanceof Error ? failure.message : "the provider refused"}.`;
      }
      // The code and state leave the address bar and the history.
      window.history.replaceState(null, "", `/${hash ?? window.location.hash}`);
    }
    this.user = await this.manager.getUser();
    if (this.user?.expired) await this.renewOrForget();
    return hash;
  }

  /**
   * Called with "state" when the player signs in or out, "token" when the token is renewed,
   * "notice" when there is only something new to say.
   */
  onChange(listener: (change: Change) => void): void {
    this.listeners.add(listener);
  }

  /** The signed-in player's display name, or undefined when nobody is signed in. */
  get name(): string | undefined {
    return this.user ? displayName(this.user.profile) : undefined;
  }

  /** The access token to send as bearer, renewed first if it has expired; none signed out. */
  async bearer(): Promise<string | undefined> {
    if (this.user === null) return undefined;
    if (this.user.expired) await this.renewOrForget();
    return this.user?.access_token;
  }

  /**
   * Goes to the provider's sign-in page; comes back to this page's current hash. A provider that
   * cannot be reached (its discovery document) is said in the notice, and nothing changes.
   */
  async signIn(): Promise<void> {
    this.notice = "";
    const state: ReturnState = { hash: window.location.hash };
    try {
      // The provider's metadata may be known already: ask whether it answers before leaving.
      const probe = await fetch(this.manager.settings.metadataUrl, { cache: "no-store" });
      if (!probe.ok) throw new Error(`the provider answered ${probe.status}`);
      await this.manager.signinRedirect({ state });
    } catch {
      this.notice = "The sign-in provider cannot be reached just now; try again shortly.";
      this.emit("notice");
    }
  }

  /**
   * Revokes the refresh token (where the provider can), forgets the player in this tab, then
   * ends the provider's session on its own page (which comes back here), where it offers that.
   */
  async signOut(): Promise<void> {
    const user = this.user;
    if (user?.refresh_token) {
      try {
        await this.manager.revokeTokens(["refresh_token"]);
      } catch {
        // No revocation endpoint, or the provider is away: the token is forgotten all the same.
      }
    }
    await this.manager.removeUser();
    this.user = null;
    this.emit("state");
    try {
      await this.manager.signoutRedirect({ id_token_hint: user?.id_token, state: { hash: window.location.hash } });
    } catch {
      // No end_session_endpoint: signed out of this page only.
    }
  }

  /** Renews the access token by the refresh token (one renewal at a time). */
  private renew(): Promise<User | null> {
    if (this.renewing === undefined) {
      this.renewing = this.refreshed().finally(() => {
        this.renewing = undefined;
      });
    }
    return this.renewing;
  }

  private async refreshed(): Promise<User | null> {
    const user = this.user;
    if (user === null || !user.refresh_token) return null;
    try {
      const renewed = await this.manager.signinSilent();
      if (renewed !== null) {
        this.user = renewed;
        this.renewals += 1;
        this.emit("token");
      }
      return renewed;
    } catch {
      return null; // the refresh token was refused or the provider is away: expired() decides
    }
  }

  /** The token has expired: renewed if it can be, else the player is signed out and told. */
  private async expired(): Promise<void> {
    if (this.user === null) return;
    await this.renewOrForget();
  }

  private async renewOrForget(): Promise<void> {
    const renewed = await this.renew();
    if (renewed !== null && !renewed.expired) return;
    await this.manager.removeUser();
    this.user = null;
    this.notice = "Your sign-in has expired: sign in again to play your seats.";
    this.emit("state");
  }

  private emit(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }
}
