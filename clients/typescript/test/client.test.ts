// createScopaClient and asSeat, checked against an in-memory router transport.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRouterTransport } from "@connectrpc/connect";
import { asSeat, createScopaClient, GameService } from "../src/index.js";

describe("createScopaClient", () => {
  it("calls GameService methods on the given transport with the seat's bearer token", async () => {
    const seen: (string | null)[] = [];
    const transport = createRouterTransport(({ service }) => {
      service(GameService, {
        getState(request, context) {
          seen.push(context.requestHeader.get("authorization"));
          return { view: { name: request.name } };
        },
      });
    });
    const client = createScopaClient(transport);
    const asSpectator = await client.getState({ name: "games/g1" });
    const asSeat0 = await client.getState({ name: "games/g1" }, asSeat("tok-0", { timeoutMs: 5_000 }));
    assert.equal(asSpectator.view?.name, "games/g1");
    assert.equal(asSeat0.view?.name, "games/g1");
    assert.deepEqual(seen, [null, "Bearer tok-0"]);
  });
});

describe("asSeat", () => {
  it("keeps the other call options and headers", () => {
    const options = asSeat("tok-1", { timeoutMs: 250, headers: { "x-trace": "1" } });
    assert.equal(options.timeoutMs, 250);
    const headers = new Headers(options.headers);
    assert.equal(headers.get("authorization"), "Bearer tok-1");
    assert.equal(headers.get("x-trace"), "1");
  });
});

describe("createScopaClient with a token provider", () => {
  it("asks the provider (sync or async) before every call and sends its fresh token", async () => {
    const seen: (string | null)[] = [];
    const transport = createRouterTransport(({ service }) => {
      service(GameService, {
        listMyGames(_request, context) {
          seen.push(context.requestHeader.get("authorization"));
          return { games: [] };
        },
      });
    });
    let calls = 0;
    const sync = createScopaClient(transport, { tokenProvider: () => `jwt-${++calls}` });
    await sync.listMyGames({});
    await sync.listMyGames({});
    const asyncClient = createScopaClient(transport, { tokenProvider: async () => "jwt-async" });
    await asyncClient.listMyGames({});
    await asyncClient.listMyGames({}, asSeat("seat-token"));
    assert.deepEqual(seen, ["Bearer jwt-1", "Bearer jwt-2", "Bearer jwt-async", "Bearer seat-token"]);
  });

  it("fails a call whose provider gives no token, without sending it", async () => {
    let sent = 0;
    const transport = createRouterTransport(({ service }) => {
      service(GameService, {
        listMyGames() {
          sent += 1;
          return { games: [] };
        },
      });
    });
    const client = createScopaClient(transport, { tokenProvider: () => "" });
    await assert.rejects(client.listMyGames({}), /empty token/);
    assert.equal(sent, 0);
  });
});
