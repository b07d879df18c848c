// The new-game form's turn clock fields as a CreateGame request (no browser needed).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TimeoutAction } from "@scopa/client";
import { BOT_LEVELS, clockRequest } from "../src/setup.js";

const NO_CLOCK = { turnTimeout: "", action: "bot", forfeitAfter: "", bot: "greedy" };

describe("the turn clock's request fields", () => {
  it("sends no timeout action, forfeit or timeout bot without a clock", () => {
    assert.deepEqual(clockRequest(NO_CLOCK), { turnTimeoutS: 0 });
    assert.deepEqual(clockRequest({ ...NO_CLOCK, turnTimeout: " 0 ", action: "forfeit", forfeitAfter: "2", bot: "ismcts" }), { turnTimeoutS: 0 });
  });

  it("sends the chosen timeout bot with a clock where a bot plays the turn", () => {
    for (const bot of BOT_LEVELS) {
      assert.deepEqual(clockRequest({ ...NO_CLOCK, turnTimeout: "60", bot }), { turnTimeoutS: 60, timeoutAction: TimeoutAction.BOT_PLAYS, timeoutBot: bot });
    }
  });

  it("sends the timeout bot with a forfeit too, since it plays the timeouts before the forfeit", () => {
    assert.deepEqual(clockRequest({ turnTimeout: "30", action: "forfeit", forfeitAfter: "2", bot: "random" }), {
      turnTimeoutS: 30,
      timeoutAction: TimeoutAction.FORFEIT,
      forfeitAfter: 2,
      timeoutBot: "random",
    });
    assert.deepEqual(clockRequest({ turnTimeout: "30", action: "forfeit", forfeitAfter: "", bot: "greedy" }), {
      turnTimeoutS: 30,
      timeoutAction: TimeoutAction.FORFEIT,
      forfeitAfter: 0,
      timeoutBot: "greedy",
    });
  });

  it("refuses in words a limit, a forfeit count or a bot level out of range", () => {
    assert.match(String(clockRequest({ ...NO_CLOCK, turnTimeout: "604801" })), /whole seconds from 1 to 604800/);
    assert.match(String(clockRequest({ ...NO_CLOCK, turnTimeout: "1.5" })), /whole seconds/);
    assert.match(String(clockRequest({ turnTimeout: "10", action: "forfeit", forfeitAfter: "101", bot: "greedy" })), /from 1 to 100/);
    assert.match(String(clockRequest({ ...NO_CLOCK, turnTimeout: "10", bot: "perfect" })), /one of random, greedy, ismcts/);
  });
});
