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
