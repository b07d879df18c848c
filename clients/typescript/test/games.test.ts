// Complete games against a real scopa server on a real redis-server, through every transport.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { Transport } from "@connectrpc/connect";
import {
  asSeat,
  Code,
  createScopaClient,
  GameStatus,
  SCOPA_ERROR_DOMAIN,
  Suit,
  scopaErrorInfo,
  type ScopaClient,
  type ScopaErrorInfo,
} from "../src/index.js";
import { createGame, playToTheEnd, tokenToPlay, watchToTheEnd } from "./support/play.js";
import { startRedis, startScopaServer, stop, type Running, type ScopaServer } from "./support/processes.js";

/** One way to reach the server, as a client program would build it. */
interface TransportCase {
  readonly name: string;
  readonly make: (server: ScopaServer) => Transport;
}

const TRANSPORTS: readonly TransportCase[] = [
  {
    name: "gRPC over HTTP/2 (connect-node createGrpcTransport)",
    make: (server) => createGrpcTransport({ baseUrl: server.grpcUrl }),
  },
];

/** True once ListRulesets answers over `transport`. */
async function answers(transport: Transport): Promise<boolean> {
  try {
    const reply = await createScopaClient(transport).listRulesets({}, { timeoutMs: 1_000 });
    return reply.rulesets.length > 0;
  } catch {
    return false;
  }
}

/** The decoded error `call` rejects with (fails the test if it resolves). */
async function rejection(call: () => Promise<unknown>): Promise<ScopaErrorInfo> {
  try {
    await call();
  } catch (error) {
    return scopaErrorInfo(error);
  }
  assert.fail("the call succeeded but an error was expected");
}

let redis: Running | undefined;
let server: ScopaServer | undefined;

before(async () => {
  redis = await startRedis();
  const redisPort = redis.port;
  server = await startScopaServer(redisPort, async (s) => {
    const ready = await Promise.all(TRANSPORTS.map((t) => answers(t.make(s))));
    return ready.every(Boolean);
  });
});

after(async () => {
  if (server !== undefined) await stop(server);
  if (redis !== undefined) await stop(redis);
});

function running(): ScopaServer {
  assert.ok(server !== undefined, "the server was not started");
  return server;
}

for (const transport of TRANSPORTS) {
  describe(transport.name, () => {
    let client: ScopaClient;
    before(() => {
      client = createScopaClient(transport.make(running()));
    });

    it("lists the presets with their options", async () => {
      const reply = await client.listRulesets({});
      const ids = reply.rulesets.map((r) => r.id);
      assert.ok(ids.includes("scopa") && ids.includes("scopone_scientifico"), ids.join(","));
      assert.ok(reply.options.some((o) => o.name === "target_score"));
    });

    it("plays a complete game while a spectator watches every play", async () => {
      const game = await createGame(client, "scopa", 2);
      assert.equal(game.view.status, GameStatus.ACTIVE);
      const abort = new AbortController();
      const watched = watchToTheEnd(client, game.name, game.view.version, abort.signal);
      try {
        const { plays, final } = await playToTheEnd(client, game);
        assert.equal(final.status, GameStatus.FINISHED);
        assert.ok(final.winners.length > 0, "a finished game has winners");
        const target = Math.max(...final.sides.map((s) => s.score));
        assert.ok(target >= 11, `the winner reached the target score (${target})`);
        const messages = await watched;
        const versions = messages.map((m) => m.version);
        assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
        assert.equal(new Set(versions).size, versions.length, "no version is sent twice");
        assert.equal(versions.at(-1), final.version);
        assert.equal(messages.at(-1)?.view?.status, GameStatus.FINISHED);
        const events = messages.flatMap((m) => m.events);
        const played = events.filter((e) => e.kind.case === "cardPlayed");
        assert.equal(played.length, plays, "the stream carries every play exactly once");
        assert.ok(events.some((e) => e.kind.case === "gameFinished"));
        for (const message of messages) {
          assert.equal(message.view?.hand.length, 0, "a spectator never sees a hand");
          assert.equal(message.view?.legalMoves.length, 0);
        }
        for (const event of events) {
          if (event.kind.case === "cardsDealt") assert.equal(event.kind.value.cards.length, 0);
        }
      } finally {
        abort.abort();
      }
    });

    it("lets an invited player join, then resign", async () => {
      const created = await client.createGame({
        preset: "scopa",
        seats: [{ displayName: "Ann" }, { open: true }],
      });
      assert.equal(created.view?.status, GameStatus.WAITING_FOR_PLAYERS);
      const invite = created.invites[0];
      assert.ok(invite !== undefined);
      const joined = await client.joinGame({ name: created.name, inviteCode: invite.inviteCode, displayName: "Bob" });
      assert.equal(joined.seat, 1);
      assert.equal(joined.view?.status, GameStatus.ACTIVE);
      assert.equal(joined.view?.hand.length, 3, "the joiner sees its own hand");
      const resigned = await client.resignGame({ name: created.name }, asSeat(joined.token));
      assert.equal(resigned.view?.status, GameStatus.FINISHED);
      assert.deepEqual(resigned.view?.winners, [0]);
    });

    it("decodes the code, reason, domain and metadata of errors", async () => {
      const game = await createGame(client, "scopa", 2);
      const waiting = game.tokens[1];
      assert.ok(waiting !== undefined && game.view.turn === 0);
      const card = game.view.hand[0];
      assert.ok(card !== undefined);
      const outOfTurn = await rejection(() => client.playCard({ name: game.name, card }, asSeat(waiting)));
      assert.equal(outOfTurn.code, Code.FailedPrecondition);
      assert.equal(outOfTurn.reason, "NOT_YOUR_TURN");
      assert.equal(outOfTurn.domain, SCOPA_ERROR_DOMAIN);

      const held = new Set(game.view.hand.map((c) => `${c.suit}/${c.rank}`));
      const missing = [1, 2, 3, 4, 5, 6, 7].map((rank) => ({ suit: Suit.DENARI, rank })).find((c) => !held.has(`${c.suit}/${c.rank}`));
      assert.ok(missing !== undefined);
      const notHeld = await rejection(() =>
        client.playCard({ name: game.name, card: missing }, asSeat(tokenToPlay(game, game.view))),
      );
      assert.equal(notHeld.reason, "CARD_NOT_IN_HAND");
      assert.equal(notHeld.metadata["card"], `${missing.rank}D`);

      const badRank = await rejection(() =>
        client.playCard({ name: game.name, card: { suit: Suit.SPADE, rank: 11 } }, asSeat(tokenToPlay(game, game.view))),
      );
      assert.equal(badRank.code, Code.InvalidArgument);
      assert.equal(badRank.reason, "INVALID_ARGUMENT");
      assert.equal(badRank.metadata["field"], "card.rank");

      const unknown = await rejection(() => client.getState({ name: "games/no-such-game" }));
      assert.equal(unknown.code, Code.NotFound);
      assert.equal(unknown.reason, "GAME_NOT_FOUND");
      const after = (await client.getState({ name: game.name })).view;
      assert.equal(after?.version, game.view.version, "refused calls change nothing");
    });
  });
}
