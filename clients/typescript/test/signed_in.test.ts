// Signed-in players through the TypeScript client: a token provider per client (a fresh access
// token from a real OpenID Connect provider for every call), against a real scopa server on a
// real redis-server: two players on two devices each, ListMyGames, a realtime session.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import {
  Code,
  createScopaClient,
  GameStatus,
  ScopaSession,
  scopaErrorInfo,
  type ScopaClient,
} from "../src/index.js";
import { AUDIENCE, oidcDir, startOidc, type Oidc } from "./support/oidc.js";
import { startRedis, startScopaServer, stop, type Running, type ScopaServer } from "./support/processes.js";

const ALICE = `ts-alice-${randomUUID().slice(0, 8)}`;
const BOB = `ts-bob-${randomUUID().slice(0, 8)}`;
const TIMEOUT = { timeout: 120_000 };
const skip = oidcDir() === undefined ? "tests/oidc/node_modules is missing: run `make ts-test`" : false;

let redis: Running | undefined;
let server: ScopaServer | undefined;
let oidc: Oidc | undefined;

/** One device of a player: its own transport, a fresh token per call; counts the calls. */
function device(subject: string, kind: "grpc" | "connect"): { client: ScopaClient; calls: () => number } {
  let calls = 0;
  const transport =
    kind === "grpc"
      ? createGrpcTransport({ baseUrl: server!.grpcUrl, defaultTimeoutMs: 30_000 })
      : createConnectTransport({ baseUrl: server!.httpUrl, httpVersion: "1.1", defaultTimeoutMs: 30_000 });
  const tokenProvider = async () => {
    calls += 1;
    return oidc!.token(subject);
  };
  return { client: createScopaClient(transport, { tokenProvider }), calls: () => calls };
}

describe("signed-in players through the TypeScript client", { skip }, () => {
  before(async () => {
    oidc = await startOidc([ALICE, BOB]);
    redis = await startRedis();
    server = await startScopaServer(
      redis.port,
      async (s) => {
        try {
          const reply = await createScopaClient(createConnectTransport({ baseUrl: s.httpUrl, httpVersion: "1.1" }))
            .listRulesets({}, { timeoutMs: 2_000 });
          return reply.rulesets.length > 0;
        } catch {
          return false;
        }
      },
      { SCOPA_OIDC_ISSUER: oidc.issuer, SCOPA_OIDC_AUDIENCE: AUDIENCE, SCOPA_ARCHIVE_URL: "off" },
    );
  });

  after(async () => {
    if (server) await stop(server);
    if (redis) await stop(redis);
    oidc?.process.kill("SIGTERM");
  });

  it("lists the game on both devices of both players, with their seats and the turn", TIMEOUT, async () => {
    const alicePhone = device(ALICE, "grpc");
    const aliceLaptop = device(ALICE, "connect");
    const bobPhone = device(BOB, "connect");
    const bobLaptop = device(BOB, "grpc");
    const created = await alicePhone.client.createGame({
      preset: "scopa",
      seats: [{ displayName: "Alice" }, { displayName: "", open: true }],
    });
    assert.equal(created.credentials[0]?.token, "");
    await bobPhone.client.joinGame({
      name: created.view!.name,
      inviteCode: created.invites[0]!.inviteCode,
      displayName: "Bob",
    });
    for (const [who, seat] of [[aliceLaptop, 0], [bobLaptop, 1], [alicePhone, 0]] as const) {
      const { games } = await who.client.listMyGames({ status: GameStatus.ACTIVE, pageSize: 100 });
      const game = games.find((g) => g.name === created.view!.name);
      assert.ok(game, "the game is listed");
      assert.equal(game.seat, seat);
      assert.equal(game.turn, 0);
    }
    const view = (await aliceLaptop.client.getState({ name: created.view!.name })).view!;
    assert.equal(view.seat, 0);
    assert.ok(aliceLaptop.calls() >= 2 && alicePhone.calls() >= 2, "a fresh token per call");

    // A realtime session of Alice's, authenticated by the provider's token at its hello.
    const session = await ScopaSession.open(server!.httpUrl, created.view!.name, {
      tokenProvider: () => oidc!.token(ALICE),
    });
    try {
      assert.equal(session.view.seat, 0);
    } finally {
      session.close();
    }
  });

  it("refuses ListMyGames without an identity token", TIMEOUT, async () => {
    const anonymous = createScopaClient(createGrpcTransport({ baseUrl: server!.grpcUrl, defaultTimeoutMs: 30_000 }));
    try {
      await anonymous.listMyGames({});
      assert.fail("ListMyGames succeeded without a token");
    } catch (error) {
      const info = scopaErrorInfo(error);
      assert.equal(info.code, Code.Unauthenticated);
      assert.equal(info.reason, "IDENTITY_REQUIRED");
    }
  });
});
