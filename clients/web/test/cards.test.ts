// Card names, codes and text alternatives (no browser needed).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { CardSchema, Suit, type Card } from "@scopa/client";
import {
  captureInWords,
  captureQuestion,
  cardCode,
  cardLabel,
  cardsInWords,
  englishName,
  italianName,
  sameCard,
  useDeck,
} from "../src/cards.js";

function card(rank: number, suit: Suit, copy = 0): Card {
  return create(CardSchema, { rank, suit, copy });
}

describe("card names", () => {
  it("names every rank and suit in Italian and English", () => {
    assert.equal(italianName(card(7, Suit.DENARI)), "Sette di denari");
    assert.equal(italianName(card(1, Suit.COPPE)), "Asso di coppe");
    assert.equal(italianName(card(10, Suit.SPADE)), "Re di spade");
    assert.equal(englishName(card(8, Suit.BASTONI)), "Jack of clubs");
    assert.equal(englishName(card(9, Suit.SPADE)), "Knight of swords");
    assert.equal(cardLabel(card(7, Suit.DENARI)), "Sette di denari (7 of coins)");
  });

  it("codes cards as the server's ErrorInfo metadata does", () => {
    assert.equal(cardCode(card(7, Suit.DENARI)), "7D");
    assert.equal(cardCode(card(10, Suit.COPPE)), "10C");
    assert.equal(cardCode(card(1, Suit.BASTONI)), "1B");
    assert.equal(cardCode(card(5, Suit.SPADE)), "5S");
  });

  it("compares cards by suit and rank and lists them in words", () => {
    assert.ok(sameCard(card(3, Suit.COPPE), card(3, Suit.COPPE)));
    assert.ok(!sameCard(card(3, Suit.COPPE), card(3, Suit.SPADE)));
    assert.equal(cardsInWords([card(3, Suit.COPPE), card(4, Suit.SPADE)]), "Tre di coppe + Quattro di spade");
  });

  it("names the 52-card deck's numerals 8..10 and figures 11..13", () => {
    useDeck(52);
    try {
      assert.equal(italianName(card(8, Suit.DENARI)), "Otto di denari");
      assert.equal(italianName(card(11, Suit.DENARI)), "Fante di denari");
      assert.equal(englishName(card(13, Suit.SPADE)), "King of swords");
      assert.equal(cardCode(card(12, Suit.COPPE)), "12C");
    } finally {
      useDeck(40);
    }
    assert.equal(italianName(card(8, Suit.DENARI)), "Fante di denari");
  });

  it("tells a second copy (80-card deck) from the first", () => {
    useDeck(80);
    try {
      const first = card(7, Suit.DENARI);
      const second = card(7, Suit.DENARI, 1);
      assert.ok(!sameCard(first, second));
      assert.equal(cardCode(second), "7D'");
      assert.equal(italianName(second), "Sette di denari (secondo mazzo)");
      assert.equal(englishName(second), "7 of coins (second deck)");
      assert.equal(italianName(first), "Sette di denari");
    } finally {
      useDeck(40);
    }
  });

  it("refuses a card without a suit", () => {
    assert.throws(() => italianName(card(3, Suit.UNSPECIFIED)), /unknown suit/);
  });
});

describe("capture choices", () => {
  it("words a capture and the lay that optional captures add", () => {
    const fante = card(8, Suit.DENARI);
    const taken = [card(8, Suit.COPPE)];
    assert.equal(captureInWords(taken), "Take Fante di coppe");
    assert.equal(captureInWords([]), "Lay it on the table (take nothing)");
    assert.equal(
      captureQuestion(fante, [taken, []]),
      "Fante di denari can capture in 1 way or be laid: what do you do?",
    );
    assert.equal(
      captureQuestion(fante, [taken, [card(5, Suit.SPADE), card(3, Suit.BASTONI)]]),
      "Fante di denari can capture in 2 ways: which cards do you take?",
    );
  });
});
