// The service from the browser: a GameService client over Connect (JSON) on this page's
// origin, and the seat tokens this tab holds (sessionStorage: they survive a reload, not the tab).
import type { Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { createScopaClient, type ScopaClient } from "@scopa/client";

/** The signed-in player's access token, or undefined (signed out, or no sign-in). */
export type Bearer = () => Promise<string | undefined>;

/**
 * Sends the signed-in player's access token as bearer on every call that carries no seat token
 * (a seat token, set by the call, wins: a seat taken anonymously is played with it).
 */
export function signedInCalls(bearer: Bearer): Interceptor {
  return (next) => async (request) => {
    if (!request.header.has("authorization")) {
      const token = await bearer();
      if (token) request.header.set("authorization", `Bearer ${token}`);
    }
    return next(request);
  };
}

/**
 * The client of the server that served this page (Connect JSON; GET for side-effect-free calls),
 * as the signed-in player when `bearer` gives a token.
 */
export function pageClient(bearer?: Bearer): ScopaClient {
  const interceptors = bearer ? [signedInCalls(bearer)] : [];
  return createScopaClient(
    createConnectTransport({ baseUrl: window.location.origin, useHttpGet: true, interceptors }),
  );
}

const TOKEN_PREFIX = "scopa.token.";

/** The token this tab holds for `game` ("games/..."), if any. */
export function loadToken(game: string): string | null {
  return window.sessionStorage.getItem(TOKEN_PREFIX + game);
}

/** Keeps the seat token of `game` for this tab. */
export function saveToken(game: string, token: string): void {
  window.sessionStorage.setItem(TOKEN_PREFIX + game, token);
}

/**
 * A fresh idempotency key (a UUID v4) for one write, the same key only to retry it.
 * (crypto.randomUUID exists only in secure contexts; a phone on the LAN over http is not one.)
 */
export function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
