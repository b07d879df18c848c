// scopaErrorInfo: ErrorInfo decoded from ConnectError details, and errors without one.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, ErrorInfoSchema, errorReason, scopaErrorInfo } from "../src/index.js";

const info = create(ErrorInfoSchema, {
  reason: "CARD_NOT_IN_HAND",
  domain: "scopa.dev",
  metadata: { card: "7D" },
});

describe("scopaErrorInfo", () => {
  it("decodes an ErrorInfo detail received on the wire", () => {
    const error = new ConnectError("card not in hand", Code.FailedPrecondition);
    error.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, info) }];
    assert.deepEqual(scopaErrorInfo(error), {
      code: Code.FailedPrecondition,
      message: "card not in hand",
      reason: "CARD_NOT_IN_HAND",
      domain: "scopa.dev",
      metadata: { card: "7D" },
    });
    assert.equal(errorReason(error), "CARD_NOT_IN_HAND");
  });

  it("ignores details of other types", () => {
    const error = new ConnectError("busy", Code.Unavailable);
    error.details = [{ type: "google.rpc.RetryInfo", value: new Uint8Array() }];
    const decoded = scopaErrorInfo(error);
    assert.equal(decoded.code, Code.Unavailable);
    assert.equal(decoded.reason, "");
    assert.deepEqual(decoded.metadata, {});
  });

  it("turns a plain Error into Code.Unknown without a reason", () => {
    const decoded = scopaErrorInfo(new Error("socket hang up"));
    assert.equal(decoded.code, Code.Unknown);
    assert.equal(decoded.message, "socket hang up");
    assert.equal(decoded.reason, "");
  });
});
