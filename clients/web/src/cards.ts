// Cards: names (Italian and English), a short code, and a clean SVG face.
import { Suit, type Card } from "@scopa/client";
import { s } from "./dom.js";

interface SuitLook {
  readonly italian: string;
  readonly english: string;
  readonly letter: string;
  readonly colour: string;
  readonly symbol: () => SVGElement;
}

const SUITS: Record<number, SuitLook> = {
  [Suit.COPPE]: { italian: "coppe", english: "cups", letter: "C", colour: "#b3261e", symbol: cup },
  [Suit.DENARI]: { italian: "denari", english: "coins", letter: "D", colour: "#a86b00", symbol: coin },
  [Suit.BASTONI]: { italian: "bastoni", english: "clubs", letter: "B", colour: "#2e6b30", symbol: club },
  [Suit.SPADE]: { italian: "spade", english: "swords", letter: "S", colour: "#1f4e9c", symbol: sword },
};

// The 40-card deck (and the 80-card deck, two of them): ranks 8, 9, 10 are the figures.
const ITALIAN_RANKS = ["", "Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re"];
const ENGLISH_RANKS = ["", "Ace", "2", "3", "4", "5", "6", "7", "Jack", "Knight", "King"];
const CORNER = ["", "A", "2", "3", "4", "5", "6", "7", "F", "C", "R"];
// The 52-card (Bresciane) deck: 8, 9, 10 are numerals and 11, 12, 13 the figures.
const ITALIAN_RANKS_52 = [...ITALIAN_RANKS.slice(0, 8), "Otto", "Nove", "Dieci", "Fante", "Cavallo", "Re"];
const ENGLISH_RANKS_52 = [...ENGLISH_RANKS.slice(0, 8), "8", "9", "10", "Jack", "Knight", "King"];
const CORNER_52 = [...CORNER.slice(0, 8), "8", "9", "10", "F", "C", "R"];

let deckSize = 40;

/** Name ranks as the deck of `size` cards does (GameView.deckSize; 0 or unknown: 40). */
export function useDeck(size: number): void {
  deckSize = size === 52 ? 52 : size === 80 ? 80 : 40;
}

function bresciane(): boolean {
  return deckSize === 52;
}

function look(card: Card): SuitLook {
  const found = SUITS[card.suit];
  if (found === undefined) throw new Error(`unknown suit ${card.suit}`);
  return found;
}

/** The card's Italian name, e.g. "Sette di denari". */
export function italianName(card: Card): string {
  const ranks = bresciane() ? ITALIAN_RANKS_52 : ITALIAN_RANKS;
  const second = card.copy === 1 ? " (secondo mazzo)" : "";
  return `${ranks[card.rank] ?? card.rank} di ${look(card).italian}${second}`;
}

/** The card's English name, e.g. "7 of coins". */
export function englishName(card: Card): string {
  const ranks = bresciane() ? ENGLISH_RANKS_52 : ENGLISH_RANKS;
  const second = card.copy === 1 ? " (second deck)" : "";
  return `${ranks[card.rank] ?? card.rank} of ${look(card).english}${second}`;
}

/** The text alternative of a card: both names. */
export function cardLabel(card: Card): string {
  return `${italianName(card)} (${englishName(card)})`;
}

/** A short code, e.g. "7D", "7D'" for a second copy (the server's ErrorInfo metadata uses the same). */
export function cardCode(card: Card): string {
  return `${card.rank}${look(card).letter}${card.copy === 1 ? "'" : ""}`;
}

/** True when both are the same card (suit, rank and copy). */
export function sameCard(a: Card, b: Card): boolean {
  return a.suit === b.suit && a.rank === b.rank && a.copy === b.copy;
}

/** A list of cards in words, e.g. "Tre di coppe + Quattro di spade". */
export function cardsInWords(cards: readonly Card[]): string {
  return cards.map(italianName).join(" + ");
}

/** A capture choice's button text: the cards taken, or the lay where capturing is optional. */
export function captureInWords(capture: readonly Card[]): string {
  return capture.length ? `Take ${cardsInWords(capture)}` : "Lay it on the table (take nothing)";
}

/** The capture dialog's question for `card` with these choices (the lay, if any, among them). */
export function captureQuestion(card: Card, captures: readonly (readonly Card[])[]): string {
  const ways = captures.filter((c) => c.length > 0).length;
  const how = `${ways} ${ways === 1 ? "way" : "ways"}`;
  return ways < captures.length
    ? `${italianName(card)} can capture in ${how} or be laid: what do you do?`
    : `${italianName(card)} can capture in ${how}: which cards do you take?`;
}

/** The face of `card` as an SVG image (decorative: the element holding it carries the label). */
export function cardFace(card: Card): SVGElement {
  const suit = look(card);
  const corner = (bresciane() ? CORNER_52 : CORNER)[card.rank] ?? String(card.rank);
  const symbol = suit.symbol();
  symbol.setAttribute("transform", "translate(30 47) scale(1.35) translate(-12 -12)");
  const figure = card.rank >= (bresciane() ? 11 : 8);
  return s(
    "svg",
    { viewBox: "0 0 60 90", class: "face", "aria-hidden": "true", focusable: "false" },
    s("rect", { x: 1, y: 1, width: 58, height: 88, rx: 6, class: "paper" }),
    figure ? s("rect", { x: 9, y: 20, width: 42, height: 54, rx: 4, class: "frame", stroke: suit.colour }) : null,
    s("text", { x: 6, y: 17, class: "rank", fill: suit.colour }, corner),
    s("text", { x: 6, y: 17, class: "rank", fill: suit.colour, transform: "rotate(180 30 45)" }, corner),
    symbol,
    card.copy === 1 ? s("text", { x: 30, y: 84, class: "copy", "text-anchor": "middle", fill: suit.colour }, "II") : null,
  );
}

function cup(): SVGElement {
  const colour = SUITS[Suit.COPPE]?.colour ?? "red";
  return s(
    "g",
    { fill: colour },
    s("path", { d: "M4 3h16c0 6-3 9-8 10C7 12 4 9 4 3z" }),
    s("rect", { x: 11, y: 12, width: 2, height: 6 }),
    s("ellipse", { cx: 12, cy: 19.5, rx: 6, ry: 2 }),
  );
}

function coin(): SVGElement {
  const colour = SUITS[Suit.DENARI]?.colour ?? "goldenrod";
  return s(
    "g",
    {},
    s("circle", { cx: 12, cy: 12, r: 10, fill: "#f2c94c", stroke: colour, "stroke-width": 2 }),
    s("circle", { cx: 12, cy: 12, r: 4.5, fill: "none", stroke: colour, "stroke-width": 1.5 }),
  );
}

function club(): SVGElement {
  const colour = SUITS[Suit.BASTONI]?.colour ?? "green";
  return s(
    "g",
    { fill: colour, transform: "rotate(35 12 12)" },
    s("rect", { x: 9.5, y: 0, width: 5, height: 24, rx: 2.5 }),
    s("circle", { cx: 8.5, cy: 7, r: 1.6 }),
    s("circle", { cx: 15.5, cy: 12, r: 1.6 }),
    s("circle", { cx: 8.5, cy: 17, r: 1.6 }),
  );
}

function sword(): SVGElement {
  const colour = SUITS[Suit.SPADE]?.colour ?? "blue";
  return s(
    "g",
    { fill: colour },
    s("path", { d: "M12 0l2.5 5v11h-5V5z" }),
    s("rect", { x: 5, y: 16, width: 14, height: 2.5, rx: 1 }),
    s("rect", { x: 10.75, y: 18.5, width: 2.5, height: 4.5 }),
  );
}
