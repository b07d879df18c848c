// Words for people: error reasons (google.rpc.ErrorInfo) and game events.
import { ClaimAnswer, scopaErrorInfo, type Card, type Event, type GameView, type HandResult } from "@scopa/client";
import { cardsInWords, italianName } from "./cards.js";

/** What each ErrorInfo reason means for the person who caused it. */
const REASONS: Record<string, (metadata: Readonly<Record<string, string>>) => string> = {
  NOT_YOUR_TURN: () => "It is not your turn: wait for the other player.",
  WAITING_FOR_PLAYERS: () => "The game has not started: an open seat is still waiting for its player.",
  CARD_NOT_IN_HAND: (m) => `That card (${m["card"] ?? "?"}) is not in your hand.`,
  CAPTURE_NOT_LEGAL: () => "That play is not allowed: it must capture differently (or must capture).",
  CAPTURE_CHOICE_REQUIRED: () => "That card can capture in several ways: choose which cards to take.",
  ACTION_NOT_LEGAL: () => "That action is not open to you now.",
  GAME_OVER: () => "The game is over.",
  INVITE_INVALID: () => "This invite link is not valid for this game (or its seat is gone).",
  SEAT_TAKEN: () => "Someone else has already taken this seat.",
  GAME_NOT_FOUND: () => "This game does not exist, or it has expired.",
  UNAUTHENTICATED: () => "Your seat's key was not accepted; open your invite link again.",
  PERMISSION_DENIED: () => "Your seat's key belongs to another game.",
  INVALID_OPTION: (m) => `That rule option is not accepted${m["option"] ? ` (${m["option"]})` : ""}.`,
  INVALID_ARGUMENT: (m) => `The server refused a value${m["field"] ? ` (${m["field"]})` : ""}.`,
  RATE_LIMITED: () => "Too many games created from here just now; try again in a minute.",
  STALE_ETAG: () => "The game changed meanwhile; look again and replay.",
  CONCURRENT_UPDATE: () => "Another move arrived at the same moment; try again.",
  STORAGE_UNAVAILABLE: () => "The server cannot reach its game store; try again shortly.",
  OUTCOME_UNKNOWN: () => "The server could not confirm the move; try again.",
  SERVER_SHUTTING_DOWN: () => "The server is restarting; try again.",
  FORMAT_TOO_NEW: () => "The server is being updated; try again.",
  GAME_STUCK: () => "This game cannot go on (a fault on our side); please start a new one.",
  BOT_ONLY_GAMES_DISABLED: () => "This server needs at least one person at the table.",
  GAME_NOT_FINISHED: () => "This game is still being played: its record comes when it ends.",
  REMATCH_UNAVAILABLE: () => "This game cannot have a rematch (a seat was never taken); start a new game.",
  GAME_UNPLAYABLE: () => "This game's rules are no longer played here; please start a new one.",
  TOO_MANY_WATCHES: () => "Too many games are open from this address.",
  TOO_MANY_SESSIONS: () => "The server has too many open games just now; try again shortly.",
  STORAGE_FULL: () => "The server's game store is full; nothing changed, try again later.",
  REQUEST_ID_REUSED: () => "That request was already sent with other contents; try again.",
  IDENTITY_INVALID: () => "Your sign-in was not accepted; sign in again.",
  IDENTITY_UNAVAILABLE: () => "The server cannot check sign-ins just now; try again shortly.",
  SEAT_NOT_YOURS: () => "This seat belongs to another player.",
  SPECTATOR_INVITE_REQUIRED: () => "This game is watched by invitation only: ask a player for its link.",
};

/** An error as words for a person, plus its reason for the curious. */
export function errorInWords(error: unknown): { text: string; reason: string } {
  const info = scopaErrorInfo(error);
  const words = REASONS[info.reason];
  const text = words ? words(info.metadata) : info.message || "Something went wrong.";
  return { text, reason: info.reason || String(info.code) };
}

/** The display name of a seat (or "Seat n"). */
export function seatName(view: GameView, seat: number): string {
  const info = view.seats[seat];
  return info?.displayName || `Seat ${seat + 1}`;
}

/** The name of a side: its seats' names joined. */
export function sideName(view: GameView, side: number): string {
  const info = view.sides[side];
  if (info === undefined) return `Side ${side + 1}`;
  return info.seats.map((seat) => seatName(view, seat)).join(" & ");
}

const SWEEP_WORDS: Record<string, string> = { spazzino: "Spazzino", spatola: "Spatola", spatola4: "Spatola" };

/** Points a special play scored (or, below zero, cost): "Ann scores picula (+1).", "Ann loses 1 (false claim)." */
function specialWords(who: string, special: { readonly name: string; readonly points: number }): string {
  const name = special.name.replaceAll("_", " ");
  return special.points < 0 ? `${who} loses ${-special.points} (${name}).` : `${who} scores ${name} (+${special.points}).`;
}

/**
 * An ordinary play in words: "Bot plays Sei di spade and takes Due di coppe + Quattro di
 * denari.", "Ann lays Tre di bastoni on the table.", or a stolen pile (Rubamazzo).
 */
function playWords(
  view: GameView,
  who: string,
  played: { readonly card?: Card; readonly captured: readonly Card[]; readonly stolenFromSide?: number },
): string {
  const card = played.card ? italianName(played.card) : "a card";
  if (played.stolenFromSide !== undefined) {
    const count = played.captured.length;
    return `${who} plays ${card} and steals the pile of ${sideName(view, played.stolenFromSide)} (${count} ${count === 1 ? "card" : "cards"}).`;
  }
  if (played.captured.length === 0) return `${who} lays ${card} on the table.`;
  return `${who} plays ${card} and takes ${cardsInWords(played.captured)}.`;
}

/**
 * A scored hand, one line per category that scored, after the totals: "Carte: Ann +1 (22),
 * Bot 0 (18)." (the raw measure in brackets where the category has one).
 */
export function scoringLines(view: GameView, result: HandResult): string[] {
  const lines: string[] = [];
  for (const line of result.lines) {
    if (!line.points.some((points) => points !== 0)) continue;
    const sides = line.points.map((points, side) => {
      const value = line.values[side];
      const measure = value === undefined ? "" : ` (${Number.isInteger(value) ? value : value.toFixed(1)})`;
      return `${sideName(view, side)} ${points > 0 ? `+${points}` : points}${measure}`;
    });
    lines.push(`${categoryName(line.name)}: ${sides.join(", ")}.`);
  }
  return lines;
}

/** The announcement of an event, or null when it needs none. */
export function announce(view: GameView, event: Event): string | null {
  const kind = event.kind;
  switch (kind.case) {
    case "cardPlayed": {
      const played = kind.value;
      const who = seatName(view, played.seat);
      const parts: string[] = [];
      const farm = played.farm;
      if (farm !== undefined) {
        const cards = cardsInWords(farm.cards);
        if (played.captured.length > 0) parts.push(`${who} takes the farm of ${farm.value} (${cards}).`);
        else if (farm.cards.length > 2) parts.push(`${who} raises the farm to ${farm.value} (${cards}).`);
        else parts.push(`${who} builds a farm of ${farm.value} (${cards}).`);
      }
      const claim = played.claim;
      if (farm === undefined && claim === undefined) parts.push(playWords(view, who, played));
      if (claim !== undefined) {
        const card = played.card ? cardsInWords([played.card]) : "the face-down card";
        if (claim.doubterSeat === undefined) {
          parts.push(`The sweep ${who} claimed is trusted: it stands, its card unseen.`);
        } else {
          const doubter = seatName(view, claim.doubterSeat);
          parts.push(
            claim.genuine
              ? `${doubter} doubted, but ${who}'s ${card} does sweep the table: the sweep stands.`
              : `${doubter} doubted rightly: ${who}'s ${card} does not sweep the table; it is laid on the table.`,
          );
        }
        for (const special of claim.doubterSpecials) parts.push(specialWords(claim.doubterSeat === undefined ? who : seatName(view, claim.doubterSeat), special));
      }
      if (played.sweep) parts.push(`${SWEEP_WORDS[view.preset] ?? "Scopa"}! ${who} swept the table.`);
      for (const special of played.specials) parts.push(specialWords(who, special));
      return parts.length > 0 ? parts.join(" ") : null;
    }
    case "handStarted":
      return `Hand ${kind.value.handNumber} begins; ${seatName(view, kind.value.dealer)} deals.`;
    case "leftoverTaken":
      return kind.value.cards.length > 0
        ? `${seatName(view, kind.value.seat)} takes the cards left on the table (${cardsInWords(kind.value.cards)}).`
        : null;
    case "handScored": {
      const result = kind.value.result;
      if (result === undefined) return null;
      const totals = result.totals.map((points, side) => `${sideName(view, side)} +${points}`).join(", ");
      return `Hand ${result.handNumber} scored: ${totals}.`;
    }
    case "gameFinished":
      return `Game over: ${kind.value.winners.map((side) => sideName(view, side)).join(" and ")} won.`;
    case "seatJoined":
      return `${kind.value.displayName || `Seat ${kind.value.seat + 1}`} joined.`;
    case "seatResigned":
      return `${seatName(view, kind.value.seat)} resigned.`;
    case "redeal":
      return `The deal is void (${kind.value.reason}); the cards are dealt again.`;
    case "turnTimedOut": {
      const who = seatName(view, kind.value.seat);
      const count = `timeout ${kind.value.timeouts}`;
      return kind.value.forfeited
        ? `${who} ran out of time (${count}) and forfeits.`
        : `${who} ran out of time (${count}); the ${kind.value.bot || "timeout"} bot plays for them.`;
    }
    case "sweepClaimed":
      return `${seatName(view, kind.value.seat)} plays a card face down and claims a sweep: ti fidi?`;
    case "claimAnswered":
      return `${seatName(view, kind.value.seat)} ${kind.value.answer === ClaimAnswer.TRUST ? "trusts" : "doubts"} the sweep.`;
    case "declared":
      return `${seatName(view, kind.value.seat)} declares ${kind.value.name}: ${kind.value.cards.map(italianName).join(", ")} (+${kind.value.points}).`;
    default:
      // Kinds without words of their own: the deal (cardsDealt) says nothing, and a kind added to
      // the API later that scores a seat named points is told generically.
      return kind.case === undefined ? null : pointsInWords(view, kind.value);
  }
}

/**
 * An event of a kind this client has no words for, when it scores a seat named points (a seat,
 * a name and points, and maybe the cards it took): "Ann scores dealer bonus (+2), taking Tre di
 * coppe + Sette di denari."; null for any other shape.
 */
export function pointsInWords(view: GameView, value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const { seat, name, points, cards } = value as { seat?: unknown; name?: unknown; points?: unknown; cards?: unknown };
  if (typeof seat !== "number" || typeof name !== "string" || name === "" || typeof points !== "number") return null;
  const words = specialWords(seatName(view, seat), { name, points });
  const taken = Array.isArray(cards) && cards.length > 0 ? `, taking ${cardsInWords(cards as Card[])}` : "";
  return taken === "" ? words : `${words.slice(0, -1)}${taken}.`;
}

/**
 * The game's turn clock in words (GameView.turn_timeout_s and timeout_bot), e.g. "60 s a turn;
 * the greedy bot plays a turn that runs out"; null without a clock.
 */
export function clockInWords(view: GameView): string | null {
  if (view.turnTimeoutS <= 0) return null;
  const bot = view.timeoutBot ? `the ${view.timeoutBot} bot` : "a bot";
  return `${view.turnTimeoutS} s a turn; ${bot} plays a turn that runs out`;
}

/** A score category's name in words, e.g. "two_of_spade" -> "Two of spade". */
export function categoryName(name: string): string {
  const text = name.replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}
