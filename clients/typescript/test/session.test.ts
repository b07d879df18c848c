// Realtime sessions (ScopaSession) against a real scopa server on a real redis-server: a whole
// game over two WebSocket sessions, a refused action, a ping.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { create, toJson } from "@bufbuild/protobuf";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  ActionSchema,
  asSeat,
  Code,
  createScopaClient,
  GameStatus,
  type GameView,
  GameViewSchema,
  ScopaSession,
  ScopaSessionError,
  type ScopaClient,
  type SessionUpdate,
} from "../src/index.js";
import { createGame } from "./support/play.js";
import { startRedis, startScopaServer, stop, type Running, type ScopaServer } from "./support/processes.js";

const TEST_TIMEOUT = { timeout: 120_000 };
const MAX_PLAYS = 2_000;

let redis: Running | undefined;
let server: ScopaServer | undefined;
let client: ScopaClient;

before(async () => {
  redis = await startRedis();
  server = await startScopaServer(
    redis.port,
    async (s) => (await fetch(`${s.httpUrl}/readyz`).catch(() => undefined))?.ok === true,
    { SCOPA_SESSION_ACTION_RATE: "off" },
  );
  client = createScopaClient(createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }));
});

after(async () => {
  if (server !== undefined) await stop(server);
  if (redis !== undefined) await stop(redis);
});

/** The next update the session is told of (a version made by the other seat). */
function nextUpdate(session: ScopaSession): Promise<SessionUpdate> {
  return new Promise((resolve) => {
    session.onUpdate = (update) => {
      session.onUpdate = () => {};
      resolve(update);
    };
  });
}

/** `view` as JSON without its connected seats' lastSeenTime (each stream reads the presence). */
function comparable(view: GameView): unknown {
  const json = toJson(GameViewSchema, view) as { seats?: { connected?: boolean; lastSeenTime?: string }[] };
  for (const seat of json.seats ?? []) if (seat.connected) delete seat.lastSeenTime;
  return json;
}

describe("ScopaSession", () => {
  it("plays a whole game over two sessions", TEST_TIMEOUT, async () => {
    assert.ok(server !== undefined);
    const game = await createGame(client, "scopa", 2);
    const seats = await Promise.all(
      game.tokens.map((token) => ScopaSession.open(server!.httpUrl, game.name, { token })),
    );
    try {
      assert.deepEqual(seats.map((s) => s.view.seat), [0, 1]);
      let plays = 0;
      while (seats[0]!.view.status !== GameStatus.FINISHED) {
        assert.ok(plays < MAX_PLAYS, "the game ends");
        const turn = seats[0]!.view.turn ?? -1;
        const actor = seats[turn]!;
        const other = seats[1 - turn]!;
        const told = nextUpdate(other);
        const action = actor.view.legalActions[0];
        assert.ok(action !== undefined, "the seat to play has a legal action");
        const acknowledged = await actor.act(action);
        assert.ok(acknowledged.events.length > 0);
        const update = await told;
        assert.equal(update.version, acknowledged.version);
        assert.equal(update.requestId, "");
        assert.equal(other.view.seat, 1 - turn); // its own view, never the other seat's
        plays += 1;
      }
      assert.ok(plays >= 10);
      assert.equal(seats[1]!.view.status, GameStatus.FINISHED);
    } finally {
      for (const seat of seats) seat.close();
    }
  });

  it("plays a game through view patches and ends with GetState's views", TEST_TIMEOUT, async () => {
    assert.ok(server !== undefined);
    const game = await createGame(client, "scopa", 2);
    const seats = await Promise.all(
      game.tokens.map((token) => ScopaSession.open(server!.httpUrl, game.name, { token })),
    );
    const whole = await ScopaSession.open(server.httpUrl, game.name, {
      token: game.tokens[0] ?? "",
      viewPatches: false,
    });
    const wholeUpdates: SessionUpdate[] = [];
    whole.onUpdate = (update) => wholeUpdates.push(update);
    const patched: SessionUpdate[] = [];
    for (const seat of seats) seat.onUpdate = (update) => patched.push(update);
    try {
      let plays = 0;
      while (seats[0]!.view.status !== GameStatus.FINISHED) {
        assert.ok(plays < MAX_PLAYS, "the game ends");
        const actor = seats[seats[0]!.view.turn ?? -1]!;
        const acknowledged = await actor.act(actor.view.legalActions[0]!);
        patched.push(acknowledged);
        assert.equal(actor.view, acknowledged.view);
        // the other seat's news of the same version
        while (seats.some((s) => s.version < acknowledged.version)) await new Promise((ok) => setTimeout(ok, 5));
        plays += 1;
      }
      assert.ok(plays >= 10);
      const withView = patched.filter((u) => u.view !== undefined);
      assert.ok(withView.length >= 2 * plays);
      for (const update of withView) {
        assert.ok(update.viewPatch !== undefined, "every view came as a patch");
        assert.equal(update.view!.version, update.version);
        assert.ok(Object.keys(update.view!.options).length > 0, "the whole view");
      }
      for (const [seat, session] of seats.entries()) {
        const state = (await client.getState({ name: game.name }, asSeat(game.tokens[seat] ?? ""))).view;
        assert.deepEqual(comparable(session.view), comparable(state!));
      }
      while (whole.version < seats[0]!.version) await new Promise((ok) => setTimeout(ok, 5));
      assert.ok(wholeUpdates.length >= plays);
      assert.ok(wholeUpdates.every((u) => u.viewPatch === undefined && u.view !== undefined));
      assert.deepEqual(comparable(whole.view), comparable(seats[0]!.view));
    } finally {
      for (const seat of [...seats, whole]) seat.close();
    }
  });

  it("rejects a refused action with its reason and stays open", TEST_TIMEOUT, async () => {
    assert.ok(server !== undefined);
    const game = await createGame(client, "scopa", 2);
    const bob = await ScopaSession.open(server.httpUrl, game.name, { token: game.tokens[1] ?? "" });
    try {
      const card = bob.view.hand[0];
      await assert.rejects(
        bob.act(create(ActionSchema, { kind: { case: "playCard", value: { card } } }), "early"),
        (error: unknown) =>
          error instanceof ScopaSessionError &&
          error.reason === "NOT_YOUR_TURN" &&
          error.requestId === "early" &&
          error.code === Code.FailedPrecondition,
      );
      assert.equal((await bob.ping("still-open")).payload, "still-open");
    } finally {
      bob.close();
    }
  });

  it("refuses a forged token at the hello", TEST_TIMEOUT, async () => {
    assert.ok(server !== undefined);
    const game = await createGame(client, "scopa", 2);
    await assert.rejects(
      ScopaSession.open(server.httpUrl, game.name, { token: "forged" }),
      (error: unknown) => error instanceof ScopaSessionError && error.reason === "UNAUTHENTICATED",
    );
  });
});
