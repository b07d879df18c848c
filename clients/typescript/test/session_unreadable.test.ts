// A session that receives a frame it cannot read ends (ScopaSessionClosed with UNREADABLE_FRAME)
// and closes its socket; a call made afterwards is refused at once instead of waiting for an
// answer no one would route. The socket is a stand-in (SessionOptions.WebSocket).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { ActionSchema, ScopaSession, ScopaSessionClosed, UNREADABLE_FRAME } from "../src/index.js";
import { SessionResponseSchema } from "../src/gen/scopa/v1/scopa_pb.js";

class FakeSocket {
  static last: FakeSocket | undefined;
  binaryType = "blob";
  closedWith: number | undefined;
  sent = 0;
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {
    FakeSocket.last = this;
    setTimeout(() => this.onopen?.(), 0);
  }

  send(): void {
    this.sent += 1;
  }

  close(code: number): void {
    this.closedWith = code;
  }
}

function frame(bytes: Uint8Array): { data: ArrayBuffer } {
  return { data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer };
}

describe("a session facing an unreadable frame", () => {
  it("ends with UNREADABLE_FRAME and refuses later calls at once", async () => {
    const opening = ScopaSession.open("http://example.invalid", "games/g", {
      token: "t",
      WebSocket: FakeSocket as unknown as typeof WebSocket,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const socket = FakeSocket.last!;
    assert.equal(socket.sent, 1); // the hello
    const welcome = create(SessionResponseSchema, {
      frame: { case: "welcome", value: { version: 3, view: { name: "games/g", version: 3 } } },
    });
    socket.onmessage!(frame(toBinary(SessionResponseSchema, welcome)));
    const session = await opening;
    let closedCode: number | undefined;
    session.onClose = (code) => {
      closedCode = code;
    };
    const pending = session.ping("p");
    socket.onmessage!(frame(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff])));
    await assert.rejects(pending, (error: unknown) => error instanceof ScopaSessionClosed && error.code === UNREADABLE_FRAME);
    assert.equal(closedCode, UNREADABLE_FRAME);
    assert.equal(socket.closedWith, 1000);
    const action = create(ActionSchema, { kind: { case: "playCard", value: {} } });
    await assert.rejects(session.act(action), (error: unknown) => error instanceof ScopaSessionClosed);
    socket.onclose!({ code: 1000 }); // the socket's own close after ours changes nothing
    assert.equal(closedCode, UNREADABLE_FRAME);
  });
});
