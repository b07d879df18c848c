// Complete games against a real scopa server on a real redis-server, through every transport.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import {
  createConnectTransport as createNodeConnectTransport,
  createGrpcTransport,
} from "@connectrpc/connect-node";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Transport } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  asSeat,
  Code,
  createScopaClient,
  GameStatus,
  SCOPA_ERROR_DOMAIN,
  Suit,
  TimeoutAction,
  scopaErrorInfo,
  type ScopaClient,
  type ScopaErrorInfo,
  type WatchGameResponse,
} from "../src/index.js";
import { createGame, playToTheEnd, tokenToPlay, watchToTheEnd } from "./support/play.js";
import {
  repoRoot,
  startRedis,
  startScopaServer,
  stop,
  type Running,
  type ScopaServer,
} from "./support/processes.js";

/** Method and path of every request the Connect JSON (connect-web) transport sent. */
const connectWebRequests: { method: string; path: string; status: number }[] = [];

/** fetch, recording each request's method, path and response status. */
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  connectWebRequests.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
  return response;
};

/** A deadline for every call (streams included), so a hung connection fails a test instead of hanging it. */
const CALL_TIMEOUT_MS = 30_000;
/** A bound on each test. */
const TEST_TIMEOUT = { timeout: 120_000 };

/** One way to reach the server, as a client program would build it. */
interface TransportCase {
  readonly name: string;
  readonly make: (server: ScopaServer) => Transport;
}

const TRANSPORTS: readonly TransportCase[] = [
  {
    name: "gRPC over HTTP/2 (connect-node createGrpcTransport)",
    make: (server) => createGrpcTransport({ baseUrl: server.grpcUrl, defaultTimeoutMs: CALL_TIMEOUT_MS }),
  },
  {
    name: "Connect JSON over HTTP/1.1, GET for side-effect-free calls (connect-web, fetch)",
    make: (server) => createConnectTransport({
        baseUrl: server.httpUrl,
        useHttpGet: true,
        fetch: recordingFetch,
        defaultTimeoutMs: CALL_TIMEOUT_MS,
      }),
  },
  {
    name: "gRPC-Web over HTTP/1.1 (connect-web createGrpcWebTransport, fetch)",
    make: (server) => createGrpcWebTransport({ baseUrl: server.httpUrl, defaultTimeoutMs: CALL_TIMEOUT_MS }),
  },
  {
    name: "Connect binary over HTTP/1.1 (connect-node createConnectTransport)",
    make: (server) =>
      createNodeConnectTransport({
        baseUrl: server.httpUrl,
        httpVersion: "1.1",
        useBinaryFormat: true,
        defaultTimeoutMs: CALL_TIMEOUT_MS,
      }),
  },
];

/** True once ListRulesets answers over `transport`. */
async function answers(transport: Transport): Promise<boolean> {
  try {
    const reply = await createScopaClient(transport).listRulesets({}, { timeoutMs: 2_000 });
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
/** One transport per case, each proven to answer before the tests use it. */
const transports = new Map<string, Transport>();

before(async () => {
  redis = await startRedis();
  const redisPort = redis.port;
  server = await startScopaServer(redisPort, async (s) => {
    const ready = await Promise.all(
      TRANSPORTS.map(async (t) => {
        if (transports.has(t.name)) return true;
        const transport = t.make(s);
        if (!(await answers(transport))) return false; // a new transport (connection) next time
        transports.set(t.name, transport);
        return true;
      }),
    );
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
      const ready = transports.get(transport.name);
      assert.ok(ready !== undefined, "the server was not started");
      client = createScopaClient(ready);
    });

    it("lists the presets with their options", TEST_TIMEOUT, async () => {
      const reply = await client.listRulesets({});
      const ids = reply.rulesets.map((r) => r.id);
      assert.ok(ids.includes("scopa") && ids.includes("scopone_scientifico"), ids.join(","));
      assert.ok(reply.options.some((o) => o.name === "target_score"));
    });

    it("plays a complete game while a spectator watches every play", TEST_TIMEOUT, async () => {
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
        // Over gRPC the server appends the options and deck size as a second `view` occurrence:
        // every decoded view must carry them all the same.
        assert.equal(final.deckSize, 40);
        assert.deepEqual(final.options, game.view.options);
        for (const message of messages) {
          assert.equal(message.view?.hand.length, 0, "a spectator never sees a hand");
          assert.equal(message.view?.legalMoves.length, 0);
          assert.equal(message.view?.deckSize, 40);
          assert.deepEqual(message.view?.options, game.view.options);
        }
        for (const event of events) {
          if (event.kind.case === "cardsDealt") assert.equal(event.kind.value.cards.length, 0);
        }
      } finally {
        abort.abort();
      }
    });

    it("lists a public game, joins it without an invite, and shows the turn deadline", TEST_TIMEOUT, async () => {
      const before = Date.now();
      const created = await client.createGame({
        preset: "scopa",
        seats: [{ displayName: "Ann" }, { open: true }],
        public: true,
        turnTimeoutS: 120,
        timeoutAction: TimeoutAction.FORFEIT,
      });
      const listed = await client.listGames({ preset: "scopa", pageSize: 100 });
      const game = listed.games.find((g) => g.name === created.name);
      assert.ok(game !== undefined, "the public game is listed");
      assert.equal(game.status, GameStatus.WAITING_FOR_PLAYERS);
      assert.deepEqual(game.seats.map((s) => s.open), [false, true]);
      assert.equal(game.hand.length, 0, "the lobby shows no hand");
      const joined = await client.joinGame({ name: created.name, displayName: "Bob" });
      assert.equal(joined.seat, 1);
      assert.equal(joined.view?.turnTimeoutS, 120);
      const deadline = joined.view?.turnDeadline;
      assert.ok(deadline !== undefined, "an active clocked game has a turn deadline");
      const due = timestampDate(deadline).getTime();
      assert.ok(due >= before + 119_000 && due <= Date.now() + 121_000, `deadline ${due}`);
      const after = await client.listGames({ preset: "scopa", pageSize: 100 });
      assert.ok(!after.games.some((g) => g.name === created.name), "a full game leaves the lobby");
      const bad = await rejection(() => client.listGames({ pageToken: "not-a-token" }));
      assert.equal(bad.code, Code.InvalidArgument);
      assert.equal(bad.metadata["field"], "page_token");
    });

    it("lets an invited player join, then resign", TEST_TIMEOUT, async () => {
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

    it("asks for a rematch: the other seat's watch learns of it, and its old token plays it", TEST_TIMEOUT, async () => {
      const game = await createGame(client, "scopa", 2);
      const [ann, bob] = game.tokens;
      assert.ok(ann !== undefined && bob !== undefined);
      await client.resignGame({ name: game.name }, asSeat(ann));
      const watched: WatchGameResponse[] = [];
      const watching = (async () => {
        for await (const message of client.watchGame({ name: game.name, followRematch: true }, asSeat(bob))) watched.push(message);
      })();
      const asked = await client.rematchGame({ name: game.name }, asSeat(ann));
      await watching; // the stream ends after the message naming the rematch
      assert.equal(watched.at(-1)?.view?.rematchGame, asked.game);
      assert.equal(asked.view?.previousGame, game.name);
      assert.equal(asked.view?.dealer, 0, "seat 1 dealt the first game: seat 0 deals the rematch");
      const again = await client.rematchGame({ name: game.name }, asSeat(bob));
      assert.equal(again.game, asked.game, "one rematch per game");
      const mine = (await client.getState({ name: asked.game }, asSeat(bob))).view;
      assert.equal(mine?.seat, 1);
      assert.equal(mine?.hand.length, 3);
    });

    it("plays a whole game against a bot seat, which answers every move by itself", TEST_TIMEOUT, async () => {
      const created = await client.createGame({
        preset: "scopa",
        seats: [{ displayName: "Ann" }, { displayName: "Bot", bot: "greedy" }],
        options: { target_score: { kind: { case: "intValue", value: 1 } } },
        requestId: randomUUID(),
      });
      assert.deepEqual(created.credentials.map((c) => c.seat), [0], "a bot seat gets no token");
      const token = created.credentials[0]?.token;
      assert.ok(token !== undefined && created.view !== undefined);
      assert.deepEqual(created.view.seats.map((s) => s.bot), ["", "greedy"]);
      const state = async () => {
        const mine = (await client.getState({ name: created.name }, asSeat(token))).view;
        assert.ok(mine !== undefined);
        return mine;
      };
      let view = await state();
      let plays = 0;
      while (view.status !== GameStatus.FINISHED) {
        assert.ok(plays < 100, "the game does not end");
        assert.equal(view.turn, 0, "a bot turn was left pending");
        const move = view.legalMoves[0];
        assert.ok(move !== undefined);
        await client.playCard(
          { name: created.name, card: move.card, capture: { cards: move.capture }, requestId: randomUUID() },
          asSeat(token),
        );
        view = await state();
        plays += 1;
      }
      assert.ok(view.winners.length > 0, "a finished game has winners");
      const log: WatchGameResponse[] = [];
      for await (const message of client.watchGame({ name: created.name, fromVersion: 1 })) log.push(message);
      const seats = log.flatMap((m) => m.events).flatMap((e) => (e.kind.case === "cardPlayed" ? [e.kind.value.seat] : []));
      assert.equal(seats.filter((s) => s === 0).length, plays);
      assert.ok(seats.filter((s) => s === 1).length >= plays - 1, "the bot's plays are in the log");
    });

    it("decodes the code, reason, domain and metadata of errors", TEST_TIMEOUT, async () => {
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
        client.playCard({ name: game.name, card: { suit: Suit.SPADE, rank: 14 } }, asSeat(tokenToPlay(game, game.view))),
      );
      assert.equal(badRank.code, Code.InvalidArgument);
      assert.equal(badRank.reason, "INVALID_ARGUMENT");
      assert.equal(badRank.metadata["field"], "card.rank");

      const badCopy = await rejection(() =>
        client.playCard({ name: game.name, card: { suit: Suit.SPADE, rank: 7, copy: 2 } }, asSeat(tokenToPlay(game, game.view))),
      );
      assert.equal(badCopy.code, Code.InvalidArgument);
      assert.equal(badCopy.metadata["field"], "card.copy");

      // a 52-card rank is a card, just not in a 40-card game's hands
      const notInDeck = await rejection(() =>
        client.playCard({ name: game.name, card: { suit: Suit.SPADE, rank: 11 } }, asSeat(tokenToPlay(game, game.view))),
      );
      assert.equal(notInDeck.reason, "CARD_NOT_IN_HAND");
      assert.equal(notInDeck.metadata["card"], "11S");

      const unknown = await rejection(() => client.getState({ name: "games/no-such-game" }));
      assert.equal(unknown.code, Code.NotFound);
      assert.equal(unknown.reason, "GAME_NOT_FOUND");
      const after = (await client.getState({ name: game.name })).view;
      assert.equal(after?.version, game.view.version, "refused calls change nothing");
    });
  });
}

describe("Connect GET", () => {
  it("sends GetState and ListRulesets as GETs (NO_SIDE_EFFECTS) and PlayCard as POST", TEST_TIMEOUT, () => {
    const methods = (path: string) => new Set(connectWebRequests.filter((r) => r.path === path).map((r) => r.method));
    assert.deepEqual(methods("/scopa.v1.GameService/GetState"), new Set(["GET"]));
    assert.deepEqual(methods("/scopa.v1.GameService/ListRulesets"), new Set(["GET"]));
    assert.deepEqual(methods("/scopa.v1.GameService/PlayCard"), new Set(["POST"]));
    const gets = connectWebRequests.filter((r) => r.method === "GET");
    assert.ok(gets.some((r) => r.status === 200), "a GET succeeded");
  });
});

describe("the package README's quickstart (examples/quickstart.ts)", () => {
  const packageDir = join(repoRoot(), "clients", "typescript");

  it("is quoted verbatim in clients/typescript/README.md", TEST_TIMEOUT, () => {
    const source = readFileSync(join(packageDir, "examples", "quickstart.ts"), "utf8");
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    assert.ok(readme.includes("```ts\n" + source + "```\n"), "clients/typescript/README.md must quote examples/quickstart.ts");
  });

  it("creates a game, plays a move and decodes an error over Connect-Web", TEST_TIMEOUT, async () => {
    const compiled = readFileSync(join(packageDir, "dist", "examples", "quickstart.js"), "utf8");
    assert.ok(compiled.includes('"http://localhost:8080"'));
    const script = join(packageDir, "dist", "examples", `quickstart-${running().httpPort}.js`);
    writeFileSync(script, compiled.replace('"http://localhost:8080"', JSON.stringify(running().httpUrl)));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 });
      assert.deepEqual(stdout.trim().split("\n"), ["cardPlayed; seat 1 to play", "NOT_YOUR_TURN"]);
    } finally {
      rmSync(script, { force: true });
    }
  });
});
