// createScopaClient: a typed GameService client on any Connect transport.
import { createClient } from "@connectrpc/connect";
import type { CallOptions, Client, Transport } from "@connectrpc/connect";
import { GameService } from "./gen/scopa/v1/scopa_pb.js";

/** A promise-based client of scopa.v1.GameService. */
export type ScopaClient = Client<typeof GameService>;

/**
 * Returns a GameService client on `transport`, which may come from
 * `@connectrpc/connect-web` (`createConnectTransport` / `createGrpcWebTransport`, in
 * browsers) or `@connectrpc/connect-node` (`createConnectTransport`,
 * `createGrpcWebTransport`, `createGrpcTransport` for gRPC over HTTP/2).
 */
export function createScopaClient(transport: Transport, options: ScopaClientOptions = {}): ScopaClient {
  const provider = options.tokenProvider;
  return createClient(GameService, provider === undefined ? transport : withToken(transport, provider));
}

/**
 * Returns a fresh access token of a signed-in player (an OIDC library's, refreshed as it
 * needs), called before every call; a string or a promise of one.
 */
export type TokenProvider = () => string | Promise<string>;

/** Options of `createScopaClient`. */
export interface ScopaClientOptions {
  /**
   * Called before every call (unary and streaming): its token is sent as
   * `authorization: Bearer <token>`, unless the call sets `authorization` itself (`asSeat`).
   */
  readonly tokenProvider?: TokenProvider;
}

/** The headers of a call with the provider's token, unless they carry one already. */
export async function withBearer(header: HeadersInit | undefined, provider: TokenProvider): Promise<Headers> {
  const headers = new Headers(header);
  if (headers.has("authorization")) return headers;
  const token = await provider();
  if (!token) throw new Error("the token provider returned an empty token");
  headers.set("authorization", `Bearer ${token}`);
  return headers;
}

function withToken(transport: Transport, provider: TokenProvider): Transport {
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const headers = await withBearer(header, provider);
      return transport.unary(method, signal, timeoutMs, headers, input, contextValues);
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const headers = await withBearer(header, provider);
      return transport.stream(method, signal, timeoutMs, headers, input, contextValues);
    },
  };
}

/**
 * Call options that authenticate a call as the seat holding `token` (sent as
 * `authorization: Bearer <token>`; the only place a token travels). Without them a
 * call is a spectator's.
 */
export function asSeat(token: string, options: CallOptions = {}): CallOptions {
  const headers = new Headers(options.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...options, headers };
}
