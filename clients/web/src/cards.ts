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

const ITALIAN_RANKS = ["", "Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re"];
const ENGLISH_RANKS = ["", "Ace", "2", "3", "4", "5", "6", "7", "Jack", "Knight", "King"];
const CORNER = ["", "A", "2", "3", "4", "5", "6", "7", "F", "C", "R"];

function look(card: Card): SuitLook {
  const found = SUITS[card.suit];
  if (found === undefined) throw new Error(`unknown suit ${card.suit}`);
  return found;
}

/** The card's Italian name, e.g. "Sette di denari". */
export function italianName(card: Card): string {
  return `${ITALIAN_RANKS[card.rank] ?? card.rank} di ${look(card).italian}`;
}

/** The card's English name, e.g. "7 of coins". */
export function englishName(card: Card): string {
  return `${ENGLISH_RANKS[card.rank] ?? card.rank} of ${look(card).english}`;
}

/** The text alternative of a card: both names. */
export function cardLabel(card: Card): string {
  return `${italianName(card)} (${englishName(card)})`;
}

/** A short code, e.g. "7D" (the server's ErrorInfo metadata uses the same). */
export function cardCode(card: Card): string {
  return `${card.rank}${look(card).letter}`;
}

/** True when both are the same card. */
export function sameCard(a: Card, b: Card): boolean {
  return a.suit === b.suit && a.rank === b.rank;
}

/** A list of cards in words, e.g. "Tre di coppe + Quattro di spade". */
export function cardsInWords(cards: readonly Card[]): string {
  return cards.map(italianName).join(" + ");
}

/** The face of `card` as an SVG image (decorative: the element holding it carries the label). */
export function cardFace(card: Card): SVGElement {
  const suit = look(card);
  const corner = CORNER[card.rank] ?? String(card.rank);
  const symbol = suit.symbol();
  symbol.setAttribute("transform", "translate(30 47) scale(1.35) translate(-12 -12)");
  const figure = card.rank >= 8;
  return s(
    "svg",
    { viewBox: "0 0 60 90", class: "face", "aria-hidden": "true", focusable: "false" },
    s("rect", { x: 1, y: 1, width: 58, height: 88, rx: 6, class: "paper" }),
    figure ? s("rect", { x: 9, y: 20, width: 42, height: 54, rx: 4, class: "frame", stroke: suit.colour }) : null,
    s("text", { x: 6, y: 17, class: "rank", fill: suit.colour }, corner),
    s("text", { x: 6, y: 17, class: "rank", fill: suit.colour, transform: "rotate(180 30 45)" }, corner),
    symbol,
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
