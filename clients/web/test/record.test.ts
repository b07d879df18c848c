// A finished game's record read as a replay (no browser needed): its steps, hands and words.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readRecord, type GameRecordJson, type RecordEvent } from "../src/record.js";

/** A two-seat record of the given versions, its deck the first eight cards of coins and cups. */
function record(versions: RecordEvent[][]): string {
  const codes = ["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "1C", "2C", "3C", "4C", "5C", "6C", "7C", "8C"];
  const json: GameRecordJson = {
    format: 1,
    game: "games/g1",
    preset: "scopa",
    public: false,
    seats: [
      { name: "Ann", bot: "" },
      { name: "Bob", bot: "" },
    ],
    cards: Object.fromEntries(codes.map((code, n) => [String(n), code])),
    result: { reason: "hand_limit", winners: [0], scores: [2, 1] },
    versions: versions.map((events, index) => ({ version: index + 1, events })),
  };
  return JSON.stringify(json);
}

function scored(hand: number, totals: number[]): RecordEvent {
  return { t: "hand_scored", result: { hand_number: hand, components: [["settebello", [1, 0], []], ["carte", [0, 0], [2, 2]]], hand_totals: [1, 0], totals } };
}

/** Hand 1 (Ann plays 1D and takes 1C, leftovers to her), then hand 2 dealt twice: its first deal is void. */
const TWO_HANDS = record([
  [
    { t: "hand_started", hand_number: 1, dealer: 1, table: [8] },
    { t: "cards_dealt", seat: 0, n_cards: 1, cards: [0] },
    { t: "cards_dealt", seat: 1, n_cards: 1, cards: [1] },
  ],
  [{ t: "card_played", seat: 0, card: 0, captured: [8], taken: true, sweep: true }],
  [
    { t: "card_played", seat: 1, card: 1, captured: [], taken: false, sweep: false },
    { t: "leftover_taken", seat: 0, cards: [1] },
    scored(1, [1, 0]),
    { t: "redealt", hand_number: 2, reason: "three kings on the table", table: [2, 3, 4, 5] },
    { t: "hand_started", hand_number: 2, dealer: 0, table: [9] },
    { t: "cards_dealt", seat: 1, n_cards: 1, cards: [6] },
    { t: "cards_dealt", seat: 0, n_cards: 1, cards: [7] },
  ],
  [{ t: "card_played", seat: 1, card: 6, captured: [], taken: false, sweep: false }],
]);

describe("a record read as a replay", () => {
  it("makes a step of each play, the leftovers and the scoring; the deals join the hand's first step", () => {
    const replay = readRecord(TWO_HANDS);
    assert.equal(replay.deckSize, 16);
    assert.deepEqual(
      replay.steps.map((step) => [step.hand, step.version]),
      [[1, 1], [1, 2], [1, 3], [1, 3], [1, 3], [2, 3], [2, 4]],
    );
    assert.deepEqual(replay.hands, [{ hand: 1, first: 0 }, { hand: 2, first: 5 }]);
    const [deal, take] = replay.steps;
    assert.deepEqual(deal?.hands.map((hand) => hand.length), [1, 1], "each seat's dealt cards in the deal's step");
    assert.deepEqual(take?.played?.captured.map((c) => c.rank), [1]);
    assert.equal(take?.table.length, 0);
  });

  it("shows the hand's scoring at the step before the next hand begins", () => {
    const replay = readRecord(TWO_HANDS);
    const second = replay.hands.find((h) => h.hand === 2)?.first ?? -1;
    const before = replay.steps[second - 1];
    assert.equal(before?.hand, 1);
    assert.equal(before?.scored?.handNumber, 1);
    assert.deepEqual(before?.scores, [1, 0]);
  });

  it("tells a void deal in the step of the hand it deals, before that hand begins, with the deal that stood", () => {
    const replay = readRecord(TWO_HANDS);
    const second = replay.steps[replay.hands.find((h) => h.hand === 2)?.first ?? -1];
    assert.equal(second?.hand, 2);
    assert.match(second?.told[0] ?? "", /^The deal is void \(three kings on the table\)/);
    assert.match(second?.told[1] ?? "", /^Hand 2 begins/);
    assert.deepEqual(second?.table.map((c) => c.rank), [2], "the table that stood, not the void one");
    assert.ok(replay.steps.every((step) => step.hand === 2 || !step.told.some((t) => t.startsWith("The deal is void"))));
  });

  it("tells a void first deal in the first hand's step", () => {
    const replay = readRecord(
      record([
        [
          { t: "redealt", hand_number: 1, reason: "three kings on the table", table: [2, 3, 4, 5] },
          { t: "hand_started", hand_number: 1, dealer: 1, table: [8] },
          { t: "cards_dealt", seat: 0, n_cards: 1, cards: [0] },
        ],
      ]),
    );
    assert.equal(replay.steps.length, 1);
    assert.match(replay.steps[0]?.told[0] ?? "", /^The deal is void/);
  });
});
