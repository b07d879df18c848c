// @scopa/client: the generated scopa.v1 API plus a client factory and ErrorInfo decoding.
export * from "./gen/scopa/v1/scopa_pb.js";
export { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
export type { ErrorInfo } from "./gen/google/rpc/error_details_pb.js";
export { StatusSchema } from "./gen/google/rpc/status_pb.js";
export type { Status } from "./gen/google/rpc/status_pb.js";
export { asSeat, createScopaClient } from "./client.js";
export type { ScopaClient, ScopaClientOptions, TokenProvider } from "./client.js";
export { SCOPA_ERROR_DOMAIN, errorReason, scopaErrorInfo } from "./errors.js";
export type { ScopaErrorInfo } from "./errors.js";
export { Code, ConnectError } from "@connectrpc/connect";
export {
  applyViewPatch,
  ScopaSession,
  ScopaSessionClosed,
  ScopaSessionError,
  SESSION_PATH,
  SESSION_SUBPROTOCOL,
  UNREADABLE_FRAME,
} from "./session.js";
export type { SessionOptions, WebSocketConstructor } from "./session.js";
