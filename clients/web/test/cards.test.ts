// Card names, codes and text alternatives (no browser needed).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { CardSchema, Suit, type Card } from "@scopa/client";
import { cardCode, cardLabel, cardsInWords, englishName, italianName, sameCard } from "../src/cards.js";

function card(rank: number, suit: Suit): Card {
  return create(CardSchema, { rank, suit });
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

  it("refuses a card without a suit", () => {
    assert.throws(() => italianName(card(3, Suit.UNSPECIFIED)), /unknown suit/);
  });
});
