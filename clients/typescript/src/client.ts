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
export function createScopaClient(transport: Transport): ScopaClient {
  return createClient(GameService, transport);
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
