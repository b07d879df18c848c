// A whole 2-player game through a client that openapi-typescript + openapi-fetch generate from
// the committed OpenAPI document, as a team that takes no package of ours would write it:
// no non-null assertion, no cast, no check for a field the server always sends.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../gen/schema.js";
import {
  startRedis,
  startScopaServer,
  stop,
  type Running,
  type ScopaServer,
} from "../../typescript/test/support/processes.js";

type Schemas = components["schemas"];
type Event = Schemas["scopa.v1.Event"];
type GameView = Schemas["scopa.v1.GameView"];

const TEST_TIMEOUT = { timeout: 120_000 };
const MAX_TURNS = 2_000;

let redis: Running;
let server: ScopaServer;
let api: Client<paths>;

async function probe(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** The id in a resource name: the path takes `games/{game}`'s id. */
function gameId(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}

/** A seat's view of the game (GetState with its token). */
async function viewOf(game: string, token: string): Promise<GameView> {
  const { data, error } = await api.GET("/v1/games/{game}", {
    params: { path: { game } },
    headers: bearer(token),
  });
  if (error) throw new Error(`GetState: ${error.error.message}`);
  return data.view;
}

/** Plays the first legal move of the seat whose turn it is; returns the events it produced. */
async function playFirstMove(game: string, view: GameView, token: string): Promise<Event[]> {
  const move = view.legalMoves[0];
  assert.ok(move, `seat ${String(view.seat)} has the turn but no legal move`);
  const { data, error } = await api.POST("/v1/games/{game}:playCard", {
    params: { path: { game } },
    headers: bearer(token),
    body: { card: move.card, capture: { cards: move.capture }, etag: view.etag, requestId: randomUUID() },
  });
  if (error) throw new Error(`PlayCard: ${error.error.status} ${error.error.message}`);
  return data.events;
}

before(async () => {
  redis = await startRedis();
  server = await startScopaServer(redis.port, (s) => probe(`${s.httpUrl}/readyz`));
  api = createClient<paths>({ baseUrl: server.httpUrl });
});

after(async () => {
  if (server) await stop(server);
  if (redis) await stop(redis);
});

describe("a client generated from openapi.json", () => {
  it("plays a whole 2-player game", TEST_TIMEOUT, async () => {
    const rulesets = await api.GET("/v1/rulesets");
    if (rulesets.error) throw new Error(rulesets.error.error.message);
    assert.ok(rulesets.data.rulesets.some((r) => r.id === "scopa"));

    // CreateGame takes no token; Ann holds seat 0, seat 1 is open for Bob.
    const created = await api.POST("/v1/games", {
      body: {
        preset: "scopa",
        options: { target_score: { intValue: 1 } },
        seats: [{ displayName: "Ann" }, { open: true }],
        requestId: randomUUID(),
      },
    });
    if (created.error) throw new Error(created.error.error.message);
    const game = gameId(created.data.name);
    const [ann] = created.data.credentials;
    const [invite] = created.data.invites;
    assert.ok(ann && invite);
    const joined = await api.POST("/v1/games/{game}:join", {
      params: { path: { game } },
      body: { inviteCode: invite.inviteCode, displayName: "Bob", requestId: randomUUID() },
    });
    if (joined.error) throw new Error(joined.error.error.message);
    const tokens = new Map([
      [ann.seat, ann.token],
      [joined.data.seat, joined.data.token],
    ]);

    // A spectator (no token) sees the seats and hand sizes, never a card.
    const watching = await api.GET("/v1/games/{game}", { params: { path: { game } } });
    if (watching.error) throw new Error(watching.error.error.message);
    assert.equal(watching.data.view.status, "GAME_STATUS_ACTIVE");
    assert.deepEqual(watching.data.view.hand, []);
    assert.deepEqual(
      watching.data.view.seats.map((s) => s.displayName),
      ["Ann", "Bob"],
    );

    let played = 0;
    let view = watching.data.view;
    while (view.status !== "GAME_STATUS_FINISHED") {
      assert.ok(played < MAX_TURNS, "the game did not finish");
      const turn = view.turn;
      const token = turn === undefined ? undefined : tokens.get(turn);
      assert.ok(token !== undefined, `no seat of ours has the turn (${String(turn)})`);
      const events = await playFirstMove(game, await viewOf(game, token), token);
      // A oneof is a union: `"cardPlayed" in e` narrows it to the CardPlayed event.
      const plays = events.filter((e) => "cardPlayed" in e).map((e) => ("cardPlayed" in e ? e.cardPlayed.seat : -1));
      assert.deepEqual(plays.slice(0, 1), [turn]);
      played += 1;
      view = await viewOf(game, token);
    }
    assert.equal(view.winners.length, 1);
    assert.notEqual(view.finishReason, "FINISH_REASON_UNSPECIFIED");
    assert.equal(view.sides.length, 2);
    assert.ok(played >= 36, `a hand has 36 plays at least, got ${played}`);
  });

  it("answers 304 to an If-None-Match of the current etag", TEST_TIMEOUT, async () => {
    const created = await api.POST("/v1/games", { body: { preset: "scopa" } });
    if (created.error) throw new Error(created.error.error.message);
    const game = gameId(created.data.name);
    const again = await api.GET("/v1/games/{game}", {
      params: { path: { game }, header: { "If-None-Match": `"${created.data.view.etag}"` } },
    });
    assert.equal(again.response.status, 304);
  });
});
