// Errors and events in words (no browser needed).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, EventSchema, GameViewSchema, Suit, type GameView, type HandResult } from "@scopa/client";
import { announce, categoryName, clockInWords, errorInWords, pointsInWords, scoringLines, seatName, sideName } from "../src/messages.js";

type HandResultHolder = { result: HandResult };

function scopaError(code: Code, reason: string, metadata: Record<string, string> = {}): ConnectError {
  return new ConnectError("raw message", code, undefined, [
    { desc: ErrorInfoSchema, value: { reason, domain: "scopa.dev", metadata } },
  ]);
}

function twoSeats(preset: string): GameView {
  return create(GameViewSchema, {
    preset,
    seats: [
      { seat: 0, displayName: "Ann", side: 0 },
      { seat: 1, displayName: "", side: 1 },
    ],
    sides: [
      { side: 0, seats: [0] },
      { side: 1, seats: [1] },
    ],
  });
}

describe("errors in words", () => {
  it("words an ErrorInfo reason and keeps the reason", () => {
    const words = errorInWords(scopaError(Code.FailedPrecondition, "NOT_YOUR_TURN"));
    assert.deepEqual(words, { text: "It is not your turn: wait for the other player.", reason: "NOT_YOUR_TURN" });
  });

  it("words the reasons of sign-ins, seats, sessions and a full store, not the server's text", () => {
    for (const reason of ["TOO_MANY_SESSIONS", "STORAGE_FULL", "REQUEST_ID_REUSED", "IDENTITY_INVALID", "IDENTITY_UNAVAILABLE", "SEAT_NOT_YOURS", "REMATCH_UNAVAILABLE"]) {
      const words = errorInWords(scopaError(Code.PermissionDenied, reason));
      assert.notEqual(words.text, "raw message", reason);
      assert.equal(words.reason, reason);
    }
  });

  it("quotes the metadata a reason carries", () => {
    const words = errorInWords(scopaError(Code.FailedPrecondition, "CARD_NOT_IN_HAND", { card: "7D" }));
    assert.match(words.text, /7D/);
  });

  it("falls back to the server's message for a reason it does not know", () => {
    const words = errorInWords(scopaError(Code.Internal, "SOMETHING_NEW"));
    assert.deepEqual(words, { text: "raw message", reason: "SOMETHING_NEW" });
  });

  it("gives the status code when there is no ErrorInfo", () => {
    assert.equal(errorInWords(new ConnectError("down", Code.Unavailable)).reason, String(Code.Unavailable));
  });
});

describe("events in words", () => {
  it("announces a farm built, raised and taken (Scopa della fattoria)", () => {
    const farm = (value: number, ranks: number[]) => ({
      owner: 0,
      value,
      cards: ranks.map((rank) => ({ suit: Suit.COPPE, rank })),
    });
    const played = (captured: number, value: number, ranks: number[]) =>
      create(EventSchema, {
        kind: {
          case: "cardPlayed",
          value: {
            seat: 0,
            card: { suit: Suit.COPPE, rank: ranks[ranks.length - 1] ?? 1 },
            captured: ranks.slice(0, captured).map((rank) => ({ suit: Suit.COPPE, rank })),
            farm: farm(value, ranks),
          },
        },
      });
    const view = twoSeats("fattoria");
    assert.match(announce(view, played(0, 7, [4, 3])) ?? "", /^Ann builds a farm of 7 \(/);
    assert.match(announce(view, played(0, 9, [4, 3, 2])) ?? "", /^Ann raises the farm to 9 \(/);
    assert.match(announce(view, played(2, 7, [4, 3])) ?? "", /^Ann takes the farm of 7 \(/);
  });

  it("announces a sweep by the game's own word, with its specials", () => {
    const event = create(EventSchema, {
      version: 4,
      kind: {
        case: "cardPlayed",
        value: {
          seat: 0,
          card: { suit: Suit.DENARI, rank: 7 },
          captured: [{ suit: Suit.COPPE, rank: 7 }],
          sweep: true,
          specials: [{ name: "picula", points: 1 }],
        },
      },
    });
    const play = "Ann plays Sette di denari and takes Sette di coppe.";
    assert.equal(announce(twoSeats("spazzino"), event), `${play} Spazzino! Ann swept the table. Ann scores picula (+1).`);
    assert.equal(announce(twoSeats("scopa"), event), `${play} Scopa! Ann swept the table. Ann scores picula (+1).`);
  });

  it("announces the dealer's bonus for the starting table (Cirulla)", () => {
    const event = create(EventSchema, {
      kind: {
        case: "bonus",
        value: { seat: 1, side: 1, name: "dealer_bonus", points: 1, cards: [{ suit: Suit.COPPE, rank: 5 }, { suit: Suit.DENARI, rank: 10 }] },
      },
    });
    assert.match(announce(twoSeats("cirulla"), event) ?? "", /^Seat 2 scores dealer bonus \(\+1\), taking .+\.$/);
  });

  it("announces a plain play: the card and what it took, or that it was laid, or the pile it stole", () => {
    const view = twoSeats("scopa");
    const play = (value: object) => create(EventSchema, { kind: { case: "cardPlayed", value: { seat: 1, ...value } } });
    const six = { suit: Suit.SPADE, rank: 6 };
    assert.equal(announce(view, play({ card: { suit: Suit.BASTONI, rank: 3 } })), "Seat 2 lays Tre di bastoni on the table.");
    assert.equal(
      announce(view, play({ card: six, captured: [{ suit: Suit.COPPE, rank: 2 }, { suit: Suit.DENARI, rank: 4 }] })),
      "Seat 2 plays Sei di spade and takes Due di coppe + Quattro di denari.",
    );
    assert.equal(
      announce(twoSeats("rubamazzo"), play({ card: six, captured: [six, six], stolenFromSide: 0 })),
      "Seat 2 plays Sei di spade and steals the pile of Ann (2 cards).",
    );
  });

  it("announces a hand's score and the winner, naming unnamed seats by number", () => {
    const view = twoSeats("scopa");
    const scored = create(EventSchema, { kind: { case: "handScored", value: { result: { handNumber: 2, totals: [3, 1] } } } });
    assert.equal(announce(view, scored), "Hand 2 scored: Ann +3, Seat 2 +1.");
    const finished = create(EventSchema, { kind: { case: "gameFinished", value: { winners: [1] } } });
    assert.equal(announce(view, finished), "Game over: Seat 2 won.");
    assert.equal(seatName(view, 1), "Seat 2");
    assert.equal(sideName(view, 0), "Ann");
  });

  it("announces a run-out turn clock and what it did", () => {
    const view = twoSeats("scopa");
    const played = create(EventSchema, { kind: { case: "turnTimedOut", value: { seat: 0, timeouts: 1, bot: "greedy" } } });
    assert.equal(announce(view, played), "Ann ran out of time (timeout 1); the greedy bot plays for them.");
    const forfeit = create(EventSchema, { kind: { case: "turnTimedOut", value: { seat: 1, timeouts: 3, forfeited: true } } });
    assert.equal(announce(view, forfeit), "Seat 2 ran out of time (timeout 3) and forfeits.");
  });

  it("announces how a claimed sweep was settled: trusted unseen, doubted rightly, doubted wrongly (Scopa fidasse)", () => {
    const view = twoSeats("fidasse");
    const settled = (claim: object, extra: object = {}) =>
      create(EventSchema, { kind: { case: "cardPlayed", value: { seat: 0, claim, ...extra } } });
    // Trusted: the other seats' copy has no card, and the words name none.
    assert.equal(
      announce(view, settled({}, { sweep: true, captured: [{ suit: Suit.DENARI, rank: 3 }] })),
      "The sweep Ann claimed is trusted: it stands, its card unseen. Scopa! Ann swept the table.",
    );
    const two = { suit: Suit.COPPE, rank: 2 };
    assert.equal(
      announce(view, settled({ doubterSeat: 1, genuine: false }, { card: two, specials: [{ name: "false_claim", points: -1 }] })),
      "Seat 2 doubted rightly: Ann's Due di coppe does not sweep the table; it is laid on the table. Ann loses 1 (false claim).",
    );
    assert.equal(
      announce(view, settled({ doubterSeat: 1, genuine: true, doubterSpecials: [{ name: "wrong_doubt", points: -1 }] }, { card: two, sweep: true })),
      "Seat 2 doubted, but Ann's Due di coppe does sweep the table: the sweep stands. Seat 2 loses 1 (wrong doubt). Scopa! Ann swept the table.",
    );
  });

  it("words the turn clock and its timeout bot, and nothing without a clock", () => {
    const view = twoSeats("scopa");
    assert.equal(clockInWords(view), null);
    view.turnTimeoutS = 60;
    view.timeoutBot = "ismcts";
    assert.equal(clockInWords(view), "60 s a turn; the ismcts bot plays a turn that runs out");
    view.timeoutBot = "";
    assert.equal(clockInWords(view), "60 s a turn; a bot plays a turn that runs out");
  });

  it("tells generically an event kind it has no words for that scores a seat named points, and stays silent on the deal", () => {
    const view = twoSeats("cirulla");
    const cards = [{ suit: Suit.COPPE, rank: 7 }, { suit: Suit.DENARI, rank: 8 }];
    assert.equal(pointsInWords(view, { seat: 1, side: 1, name: "dealer_bonus", points: 1, cards }), "Seat 2 scores dealer bonus (+1), taking Sette di coppe + Fante di denari.");
    assert.equal(pointsInWords(view, { seat: 0, name: "penalty", points: -2, cards: [] }), "Ann loses 2 (penalty).");
    assert.equal(pointsInWords(view, { seat: 0, cards }), null, "no points, no words");
    const dealt = create(EventSchema, { kind: { case: "cardsDealt", value: { seat: 0, cards } } });
    assert.equal(announce(view, dealt), null);
  });

  it("words a scored hand line by line: each category that scored, with its measure", () => {
    const view = twoSeats("scopa");
    const result = create(EventSchema, {
      kind: {
        case: "handScored",
        value: {
          result: {
            handNumber: 1,
            totals: [2, 1],
            lines: [
              { name: "cards", points: [1, 0], values: [22, 18] },
              { name: "settebello", points: [1, 0] },
              { name: "primiera", points: [0, 1], values: [70, 78.5] },
              { name: "coins", points: [0, 0], values: [5, 5] },
            ],
          },
        },
      },
    }).kind.value as HandResultHolder;
    assert.deepEqual(scoringLines(view, result.result), [
      "Cards: Ann +1 (22), Seat 2 0 (18).",
      "Settebello: Ann +1, Seat 2 0.",
      "Primiera: Ann 0 (70), Seat 2 +1 (78.5).",
    ]);
  });

  it("names score categories for people", () => {
    assert.equal(categoryName("two_of_spade"), "Two of spade");
  });
});
