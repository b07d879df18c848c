// The last play, shown on the table for a moment: who played which card, and where the cards it
// took went. The announcement in "What happened" says the same for screen readers.
import type { Card, Event, GameView } from "@scopa/client";
import { cardCode, cardFace, italianName } from "./cards.js";
import { h } from "./dom.js";
import { seatName, sideName } from "./messages.js";

/** How long the last play stays in full view before it fades, in milliseconds. */
export const LAST_PLAY_MS = 4_000;

/** A play as the table shows it, and when this page learnt of it. */
export interface LastPlay {
  readonly version: number;
  readonly seat: number;
  readonly card: Card | undefined;
  readonly captured: readonly Card[];
  readonly stolenFromSide: number | undefined;
  readonly at: number;
}

/** The latest card played among `events` (newer than `after`), or undefined. */
export function latestPlay(events: readonly Event[], after: number, now: number): LastPlay | undefined {
  let found: LastPlay | undefined;
  for (const event of events) {
    if (event.version <= after || event.kind.case !== "cardPlayed") continue;
    const played = event.kind.value;
    found = {
      version: event.version,
      seat: played.seat,
      card: played.card,
      captured: played.captured,
      stolenFromSide: played.stolenFromSide,
      at: now,
    };
  }
  return found;
}

/**
 * The last play on the table: "Bot played [card] and took [cards] → Bot's pile", or "… laid
 * [card]". It fades after LAST_PLAY_MS (a redraw keeps the time left, it does not restart it).
 */
export function lastPlayView(view: GameView, play: LastPlay, now: number): HTMLElement {
  const who = seatName(view, play.seat);
  const face = (card: Card): HTMLElement =>
    h("span", { class: "card small", title: italianName(card), "data-card": cardCode(card) }, cardFace(card));
  const left = LAST_PLAY_MS - (now - play.at);
  const taken = play.captured.length > 0;
  const where =
    play.stolenFromSide !== undefined
      ? `the pile of ${sideName(view, play.stolenFromSide)} → ${who}'s pile`
      : `→ ${who}'s pile`;
  const shown = h(
    "div",
    {
      class: left > 0 ? "last-play" : "last-play faded",
      "aria-hidden": "true",
      "data-seat": play.seat,
      "data-version": play.version,
      "data-card": play.card ? cardCode(play.card) : null,
      "data-captured": play.captured.map(cardCode).join(" "),
    },
    h("span", { class: "who" }, taken ? `${who} played` : `${who} laid`),
    play.card ? face(play.card) : h("span", {}, "a card face down"),
    taken ? h("span", {}, play.stolenFromSide !== undefined ? " and stole" : " and took") : null,
    ...(taken && play.stolenFromSide === undefined ? play.captured.map(face) : []),
    taken ? h("span", { class: "where" }, ` ${where}`) : null,
  );
  // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
  if (left > 0) shown.style.animationDelay = `${left}ms`;
  return shown;
}
