// ErrorInfo decoding: the reason, domain and metadata every scopa error carries.
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { ScopaSessionError } from "./session.js";

/** The domain of every ErrorInfo the scopa service sends. */
export const SCOPA_ERROR_DOMAIN = "scopa.dev";

/** A scopa error: its status code and message plus its google.rpc.ErrorInfo. */
export interface ScopaErrorInfo {
  /** The status code (e.g. Code.FailedPrecondition). */
  readonly code: Code;
  /** The message without the "[code]" prefix ConnectError adds. */
  readonly message: string;
  /** The stable UPPER_SNAKE reason, e.g. "NOT_YOUR_TURN"; "" when the error has no ErrorInfo. */
  readonly reason: string;
  /** The ErrorInfo domain, "scopa.dev" for the service's errors; "" without ErrorInfo. */
  readonly domain: string;
  /** The ErrorInfo metadata, e.g. { field: "card.rank" } or { card: "7D" }. */
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Decodes any error a ScopaClient call rejected with (gRPC, gRPC-Web or Connect, binary
 * or JSON), or a ScopaSession's error frame, into its code, message and ErrorInfo. Other
 * errors become Code.Unknown, as ConnectError.from does.
 */
export function scopaErrorInfo(error: unknown): ScopaErrorInfo {
  if (error instanceof ScopaSessionError) {
    const { code, reason, domain, metadata } = error;
    return { code, message: error.rawMessage, reason, domain, metadata: { ...metadata } };
  }
  const connectError = ConnectError.from(error);
  const info = connectError.findDetails(ErrorInfoSchema)[0];
  return {
    code: connectError.code,
    message: connectError.rawMessage,
    reason: info?.reason ?? "",
    domain: info?.domain ?? "",
    metadata: { ...(info?.metadata ?? {}) },
  };
}

/** The ErrorInfo reason of `error` ("" when it carries none). */
export function errorReason(error: unknown): string {
  return scopaErrorInfo(error).reason;
}
