// ScopaSession: a realtime session, one seat playing a whole game over one WebSocket
// (docs/api.md, "Realtime sessions"): binary protobuf frames, subprotocol scopa.v1.proto.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  type Action,
  type GameView,
  GameViewSchema,
  type SessionError,
  type SessionPong,
  type SessionRequest,
  SessionRequestSchema,
  SessionResponseSchema,
  type SessionUpdate,
  type SessionWelcome,
  type ViewPatch,
} from "./gen/scopa/v1/scopa_pb.js";
import type { ScopaErrorInfo } from "./errors.js";

/** The subprotocol of binary frames. */
export const SESSION_SUBPROTOCOL = "scopa.v1.proto";
/** The path of the session endpoint on the HTTP port. */
export const SESSION_PATH = "/v1/session";

/** The WebSocket constructor a session uses (the browser's, Node >= 22's, or `ws`). */
export type WebSocketConstructor = new (url: string, protocols: string[]) => WebSocket;

/** How to open a session. */
export interface SessionOptions {
  /** The seat's token; without one the session is a spectator's. */
  readonly token?: string;
  /**
   * A signed-in player's token provider (`createScopaClient`'s), called once for the hello
   * instead of `token`.
   */
  readonly tokenProvider?: () => string | Promise<string>;
  /** The last version received, to resume after a reconnect (0: a new session). */
  readonly lastVersion?: number;
  /** The WebSocket constructor; the global one by default. */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * Ask for view patches instead of whole views after the welcome (true by default). Either
   * way `view` and each update's `view` are the whole view; a patched update keeps its
   * `viewPatch` (what changed).
   */
  readonly viewPatches?: boolean;
}

/** An error frame (or a refused hello) as a ScopaErrorInfo, with the refused request id. */
export class ScopaSessionError extends Error implements ScopaErrorInfo {
  readonly code: Code;
  readonly reason: string;
  readonly domain: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly requestId: string;
  /** The server's message, without the reason before it. */
  readonly rawMessage: string;

  constructor(error: SessionError) {
    super(`${error.info?.reason ?? ""}: ${error.message}`);
    this.rawMessage = error.message;
    this.name = "ScopaSessionError";
    this.code = error.code as number as Code; // google.rpc.Code numbers are Connect's
    this.reason = error.info?.reason ?? "";
    this.domain = error.info?.domain ?? "";
    this.metadata = { ...(error.info?.metadata ?? {}) };
    this.requestId = error.requestId;
  }
}

/** The connection closed; `code` is its close code (4008: slow reader, 4503: draining, ...). */
export class ScopaSessionClosed extends Error {
  constructor(readonly code: number) {
    super(`the session was closed (${code})`);
    this.name = "ScopaSessionClosed";
  }
}

/** The code a session reports when the client ended it on a frame it could not read (1007). */
export const UNREADABLE_FRAME = 1007;

interface Waiter<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

/** An open session: the seat's latest view, its actions, the other seats' updates. */
export class ScopaSession {
  /** The seat's latest view, whole (the welcome's, then each update's, its patch applied). */
  view: GameView;
  /** The last version received: pass it as `lastVersion` to resume. */
  version: number;
  /** Called with each update of a version made by others (other seats, bots, clocks). */
  onUpdate: (update: SessionUpdate) => void = () => {};
  /** Called with an error frame that answers no action of this session. */
  onError: (error: ScopaSessionError) => void = () => {};
  /** Called once when the connection closes. */
  onClose: (code: number) => void = () => {};

  private readonly pending = new Map<string, Waiter<SessionUpdate>>();
  private readonly pongs = new Map<string, Waiter<SessionPong>>();
  private closedWith: number | undefined;

  private constructor(
    private readonly socket: WebSocket,
    readonly welcome: SessionWelcome,
  ) {
    this.view = welcome.view ?? create(GameViewSchema);
    this.version = welcome.version;
    socket.onmessage = (message: MessageEvent) => {
      try {
        this.receive(message.data);
      } catch {
        // A frame this client cannot read or apply ends the session (browsers may close with
        // 1000 only, so the socket says 1000 and the session reports 1007).
        this.closed(UNREADABLE_FRAME);
        socket.close(1000, "unreadable frame");
      }
    };
    socket.onclose = (event: CloseEvent) => this.closed(event.code);
  }

  /** Opens a session on `name` ("games/<id>") at `baseUrl` (the HTTP port: http(s):// or ws(s)://). */
  static open(baseUrl: string, name: string, options: SessionOptions = {}): Promise<ScopaSession> {
    const Socket = options.WebSocket ?? (globalThis.WebSocket as WebSocketConstructor | undefined);
    if (Socket === undefined) throw new Error("no WebSocket: pass options.WebSocket");
    const url = baseUrl.replace(/^http/, "ws").replace(/\/$/, "") + SESSION_PATH;
    const socket = new Socket(url, [SESSION_SUBPROTOCOL]);
    socket.binaryType = "arraybuffer";
    return new Promise((resolve, reject) => {
      socket.onopen = async () => {
        let token = options.token ?? "";
        try {
          if (options.tokenProvider !== undefined) token = await options.tokenProvider();
        } catch (error) {
          socket.close();
          reject(error);
          return;
        }
        const hello = { name, token, lastVersion: options.lastVersion ?? 0, viewPatches: options.viewPatches ?? true };
        send(socket, { frame: { case: "hello", value: hello } });
      };
      socket.onmessage = (message: MessageEvent) => {
        const frame = decode(message.data);
        if (frame.case === "welcome") resolve(new ScopaSession(socket, frame.value));
        else if (frame.case === "error") reject(new ScopaSessionError(frame.value));
      };
      socket.onclose = (event: CloseEvent) => reject(new ScopaSessionClosed(event.code));
      socket.onerror = () => {}; // the close that follows rejects
    });
  }

  /** Takes `action`; resolves with its update once committed, rejects with a ScopaSessionError. */
  act(action: Action, requestId: string = crypto.randomUUID()): Promise<SessionUpdate> {
    return this.wait(this.pending, requestId, () =>
      send(this.socket, { frame: { case: "action", value: { requestId, action, etag: "" } } }),
    );
  }

  /** An application-level round trip. */
  ping(payload: string = crypto.randomUUID()): Promise<SessionPong> {
    return this.wait(this.pongs, payload, () => send(this.socket, { frame: { case: "ping", value: { payload } } }));
  }

  /** Closes the connection (code 1000). */
  close(): void {
    this.socket.close(1000);
  }

  private wait<T>(waiters: Map<string, Waiter<T>>, key: string, start: () => void): Promise<T> {
    if (this.closedWith !== undefined) return Promise.reject(new ScopaSessionClosed(this.closedWith));
    return new Promise<T>((resolve, reject) => {
      waiters.set(key, { resolve, reject });
      start();
    }).finally(() => waiters.delete(key));
  }

  private receive(data: unknown): void {
    const frame = decode(data);
    if (frame.case === "update") {
      const update = frame.value;
      if (update.viewPatch !== undefined) update.view = applyViewPatch(this.view, update.viewPatch);
      if (update.view !== undefined) {
        this.view = update.view;
        this.version = update.version;
      }
      const waiter = update.requestId ? this.pending.get(update.requestId) : undefined;
      if (waiter !== undefined) waiter.resolve(update);
      else this.onUpdate(update);
    } else if (frame.case === "error") {
      const error = new ScopaSessionError(frame.value);
      const waiter = error.requestId ? this.pending.get(error.requestId) : undefined;
      if (waiter !== undefined) waiter.reject(error);
      else this.onError(error);
    } else if (frame.case === "pong") {
      this.pongs.get(frame.value.payload)?.resolve(frame.value);
    }
  }

  private closed(code: number): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = code;
    const error = new ScopaSessionClosed(code);
    for (const waiter of [...this.pending.values(), ...this.pongs.values()]) waiter.reject(error);
    this.onClose(code);
  }
}

/** GameView's field names (the proto names a ViewPatch's mask lists) to their properties. */
const VIEW_FIELDS: ReadonlyMap<string, string> = new Map(GameViewSchema.fields.map((f) => [f.name, f.localName]));

/**
 * `view` after `patch` (a new object; `view` is left as it is): each field named in the patch's
 * update mask takes the patch's value (its default when the patch has none); a name this copy of
 * the API does not know is skipped.
 */
export function applyViewPatch(view: GameView, patch: ViewPatch): GameView {
  const next: Record<string, unknown> = { ...view };
  const source = (patch.view ?? create(GameViewSchema)) as unknown as Record<string, unknown>;
  for (const path of patch.updateMask?.paths ?? []) {
    const property = VIEW_FIELDS.get(path);
    if (property !== undefined) next[property] = source[property];
  }
  return next as unknown as GameView;
}

function send(socket: WebSocket, frame: Parameters<typeof create<typeof SessionRequestSchema>>[1]): void {
  const message: SessionRequest = create(SessionRequestSchema, frame);
  socket.send(toBinary(SessionRequestSchema, message));
}

function decode(data: unknown) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : (data as Uint8Array);
  return fromBinary(SessionResponseSchema, bytes).frame;
}
