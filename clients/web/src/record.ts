// A finished game's record (GetGameRecord's record_json, docs/api.md "Game records") read as a
// replay: the game's events as this client's messages, and the game's state after each step
// (every seat's hand shown: the game is over, so the record hides no card).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ClaimAnswer,
  EventSchema,
  FinishReason,
  GameViewSchema,
  Suit,
  type Card,
  type Event,
  type GameView,
  type HandResult,
} from "@scopa/client";
import { announce } from "./messages.js";

/** One event as the record writes it: a type `t` and that event's fields (cards by number). */
export type RecordEvent = { readonly t: string } & Readonly<Record<string, unknown>>;

/** The record's JSON (format 1); fields a later format adds are ignored. */
export interface GameRecordJson {
  readonly format: number;
  readonly game: string;
  readonly preset: string;
  readonly public: boolean;
  readonly seats: readonly { readonly name: string; readonly bot: string }[];
  readonly cards: Readonly<Record<string, string>>;
  readonly result: { readonly reason: string; readonly winners: readonly number[] | null; readonly scores: readonly number[] | null };
  readonly versions: readonly { readonly version: number; readonly events: readonly RecordEvent[] }[];
}

/** A farm on the table (Scopa della fattoria). */
export interface ReplayFarm {
  readonly owner: number;
  readonly value: number;
  readonly cards: readonly Card[];
}

/** The game after one step of the replay. */
export interface ReplayStep {
  /** The hand this step belongs to (1 = first). */
  readonly hand: number;
  /** The game's version that made the step. */
  readonly version: number;
  /** What happened, in words (messages.ts announce), in order: the step's event, then the deals
   * and joins that followed it; a hand's first step begins with any void deals before it. */
  readonly told: readonly string[];
  /** Every seat's hand, by seat. */
  readonly hands: readonly (readonly Card[])[];
  readonly table: readonly Card[];
  readonly farms: readonly ReplayFarm[];
  /** Each side's game score. */
  readonly scores: readonly number[];
  /** The seat whose play (or declaration, claim, ...) this step is, if any. */
  readonly seat?: number;
  /** The card played, with what it took (a play only). */
  readonly played?: { readonly card?: Card; readonly captured: readonly Card[] };
  /** The hand's scoring, at the step that scored it. */
  readonly scored?: HandResult;
}

/** The replay of a record: its seats and sides as a view (for messages.ts) and its steps. */
export interface Replay {
  readonly view: GameView;
  readonly steps: readonly ReplayStep[];
  /** Each hand's number and the index of its first step. */
  readonly hands: readonly { readonly hand: number; readonly first: number }[];
  /** How many cards the game's deck has (cards.ts useDeck). */
  readonly deckSize: number;
}

const SUIT_BY_LETTER: Record<string, Suit> = { C: Suit.COPPE, D: Suit.DENARI, B: Suit.BASTONI, S: Suit.SPADE };

/** A card from its record code: rank then suit letter, a second copy ending in "'" ("7D", "10S'"). */
export function cardOfCode(code: string): Card {
  const copy = code.endsWith("'") ? 1 : 0;
  const plain = copy ? code.slice(0, -1) : code;
  const suit = SUIT_BY_LETTER[plain.slice(-1)];
  const rank = Number(plain.slice(0, -1));
  if (suit === undefined || !Number.isInteger(rank)) throw new Error(`not a card code: ${code}`);
  return { $typeName: "scopa.v1.Card", suit, rank, copy };
}

/** Events that make a step of their own; the others (a deal, a join) join the step before, and
 * a void deal (redealt) is told in the step of the hand it deals (Reader.apply). */
const STEP_KINDS = new Set([
  "hand_started",
  "card_played",
  "sweep_claimed",
  "claim_answered",
  "declared",
  "bonus_scored",
  "leftover_taken",
  "hand_scored",
  "turn_timed_out",
  "seat_resigned",
  "game_finished",
]);

/** Reads a record's JSON into its replay; throws on a record this client cannot read. */
export function readRecord(json: string): Replay {
  const record = JSON.parse(json) as GameRecordJson;
  if (record.format !== 1 && !(record.format > 1)) throw new Error(`unknown record format ${String(record.format)}`);
  const codes = new Map(Object.entries(record.cards).map(([n, code]) => [Number(n), cardOfCode(code)]));
  const card = (n: unknown): Card => {
    const found = codes.get(Number(n));
    if (found === undefined) throw new Error(`a card number not in the record's deck: ${String(n)}`);
    return found;
  };
  const cards = (list: unknown): Card[] => (Array.isArray(list) ? list.map(card) : []);
  const firstScored = record.versions.flatMap((v) => v.events).find((e) => e.t === "hand_scored");
  const sides = record.result.scores?.length || (firstScored ? numbers((firstScored["result"] as Rec)["totals"]).length : 0) || record.seats.length;
  const view = create(GameViewSchema, {
    name: record.game,
    preset: record.preset,
    seats: record.seats.map((seat, index) => ({ seat: index, displayName: seat.name, bot: seat.bot, side: index % sides })),
    sides: Array.from({ length: sides }, (_, side) => ({
      side,
      seats: record.seats.map((_seat, index) => index).filter((index) => index % sides === side),
    })),
  });
  return { ...new Reader(view, card, cards, sides).read(record), deckSize: codes.size };
}

type Rec = Readonly<Record<string, unknown>>;

function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.map(Number) : [];
}

/** Plays a record's events forward, one step at a time. */
class Reader {
  private hand = 0;
  private hands: Card[][];
  private table: Card[] = [];
  private farms: ReplayFarm[] = [];
  private scores: number[];
  /** The words of the void deals since the last hand began, told when the next one begins. */
  private voided: string[] = [];
  private readonly steps: ReplayStep[] = [];
  private readonly handFirsts: { hand: number; first: number }[] = [];

  constructor(
    private readonly view: GameView,
    private readonly card: (n: unknown) => Card,
    private readonly cards: (list: unknown) => Card[],
    sides: number,
  ) {
    this.hands = view.seats.map(() => []);
    this.scores = Array.from({ length: sides }, () => 0);
  }

  read(record: GameRecordJson): Omit<Replay, "deckSize"> {
    for (const { version, events } of record.versions) {
      for (const event of events) this.apply(version, event);
    }
    return { view: this.view, steps: this.steps, hands: this.handFirsts };
  }

  private apply(version: number, event: RecordEvent): void {
    const e = event as Rec & { t: string };
    const proto = this.toEvent(version, e);
    const words = proto === null ? null : announce(this.view, proto);
    let step: Partial<Mutable<ReplayStep>> = {};
    switch (e.t) {
      case "hand_started":
        this.hand = Number(e["hand_number"]);
        this.hands = this.hands.map(() => []);
        this.table = this.cards(e["table"]);
        this.farms = [];
        this.handFirsts.push({ hand: this.hand, first: this.steps.length });
        break;
      case "redealt":
        // Before its hand's hand_started, so after the last hand's scoring: the next hand's.
        if (words) this.voided.push(words);
        return;
      case "cards_dealt":
        this.hands[Number(e["seat"])]?.push(...this.cards(e["cards"]));
        break;
      case "card_played":
        step = this.played(e);
        break;
      case "leftover_taken":
        this.table = without(this.table, this.cards(e["cards"]));
        step = { seat: Number(e["seat"]) };
        break;
      case "hand_scored": {
        const result = proto?.kind.case === "handScored" ? proto.kind.value.result : undefined;
        if (result) this.scores = [...result.scores];
        step = { scored: result };
        break;
      }
      case "game_finished":
        this.scores = numbers(e["scores"]);
        break;
      default:
        if (typeof e["seat"] === "number") step = { seat: e["seat"] };
    }
    const last = this.steps[this.steps.length - 1];
    if (!STEP_KINDS.has(e.t) || this.hand === 0) {
      // A deal or a join: part of the step before it (the cards dealt when hands run out); the
      // joins before the first hand are no step.
      if (last !== undefined) this.steps[this.steps.length - 1] = { ...last, ...this.snapshot(), told: words ? [...last.told, words] : last.told };
      return;
    }
    const told = [...this.voided, ...(words ? [words] : [])];
    this.voided = [];
    this.steps.push({ ...this.snapshot(), version, told, ...step } as ReplayStep);
  }

  private played(e: Rec): Partial<Mutable<ReplayStep>> {
    const seat = Number(e["seat"]);
    const card = this.card(e["card"]);
    const captured = this.cards(e["captured"]);
    this.hands[seat] = without(this.hands[seat] ?? [], [card]);
    const farm = e["farm"] as Rec | undefined;
    if (farm !== undefined && captured.length === 0) {
      // A farm built or raised: its cards leave the table (and any farm it raised).
      const built = { owner: Number(farm["owner"]), value: Number(farm["value"]), cards: this.cards(farm["cards"]) };
      this.table = without(this.table, built.cards);
      this.farms = this.farms.filter((f) => !f.cards.some((c) => built.cards.some((b) => same(b, c))));
      this.farms.push(built);
    } else {
      this.table = without(this.table, captured);
      this.farms = this.farms.filter((f) => !f.cards.every((c) => captured.some((t) => same(t, c))));
      if (!e["taken"]) this.table.push(card);
    }
    return { seat, played: { card, captured } };
  }

  private snapshot(): Pick<ReplayStep, "hand" | "hands" | "table" | "farms" | "scores"> {
    return {
      hand: this.hand,
      hands: this.hands.map((hand) => [...hand]),
      table: [...this.table],
      farms: [...this.farms],
      scores: [...this.scores],
    };
  }

  /** The record's event as the API's Event (for messages.ts announce), or null for a kind it lacks. */
  private toEvent(version: number, e: Rec & { t: string }): Event | null {
    const seat = Number(e["seat"] ?? 0);
    const specials = (rows: unknown): { name: string; points: number }[] =>
      Array.isArray(rows) ? rows.map((row) => ({ name: String((row as unknown[])[0]), points: Number((row as unknown[])[1]) })) : [];
    let kind: EventInit["kind"];
    switch (e.t) {
      case "hand_started":
        kind = { case: "handStarted", value: { handNumber: Number(e["hand_number"]), dealer: Number(e["dealer"]), table: this.cards(e["table"]) } };
        break;
      case "redealt":
        kind = { case: "redeal", value: { reason: String(e["reason"] ?? ""), table: this.cards(e["table"]) } };
        break;
      case "cards_dealt":
        kind = { case: "cardsDealt", value: { seat, count: Number(e["n_cards"]), cards: this.cards(e["cards"]) } };
        break;
      case "card_played": {
        const claim = e["claim"] as unknown[] | undefined;
        const farm = e["farm"] as Rec | undefined;
        const stolen = e["stolen_from"];
        kind = {
          case: "cardPlayed",
          value: {
            seat,
            card: this.card(e["card"]),
            captured: this.cards(e["captured"]),
            sweep: Boolean(e["sweep"]),
            specials: specials(e["specials"]),
            stolenFromSide: typeof stolen === "number" && stolen >= 0 ? stolen : undefined,
            claim: claim
              ? { doubterSeat: Number(claim[0]) >= 0 ? Number(claim[0]) : undefined, genuine: Boolean(claim[1]), doubterSpecials: specials(claim[2]) }
              : undefined,
            farm: farm ? { owner: Number(farm["owner"]), value: Number(farm["value"]), cards: this.cards(farm["cards"]) } : undefined,
          },
        };
        break;
      }
      case "sweep_claimed":
        kind = { case: "sweepClaimed", value: { seat, table: this.cards(e["table"]), answeringSeats: numbers(e["answering"]) } };
        break;
      case "claim_answered":
        kind = { case: "claimAnswered", value: { seat, answer: e["trust"] ? ClaimAnswer.TRUST : ClaimAnswer.DOUBT } };
        break;
      case "declared":
        kind = { case: "declared", value: { seat, name: String(e["name"]), cards: this.cards(e["cards"]), points: Number(e["points"]) } };
        break;
      case "bonus_scored":
        kind = { case: "bonus", value: { seat, side: Number(e["side"]), name: String(e["name"]), points: Number(e["points"]), cards: this.cards(e["cards"]) } };
        break;
      case "leftover_taken":
        kind = { case: "leftoverTaken", value: { seat, cards: this.cards(e["cards"]) } };
        break;
      case "hand_scored": {
        const r = e["result"] as Rec;
        const components = Array.isArray(r["components"]) ? (r["components"] as unknown[][]) : [];
        kind = {
          case: "handScored",
          value: {
            result: {
              handNumber: Number(r["hand_number"]),
              lines: components.map(([name, points, values]) => ({ name: String(name), points: numbers(points), values: numbers(values) })),
              totals: numbers(r["hand_totals"]),
              scores: numbers(r["totals"]),
            },
          },
        };
        break;
      }
      case "game_finished":
        kind = { case: "gameFinished", value: { winners: numbers(e["winners"]), reason: finishReason(e["reason"]), scores: numbers(e["scores"]) } };
        break;
      case "seat_joined":
        kind = { case: "seatJoined", value: { seat, displayName: String(e["name"] ?? "") } };
        break;
      case "seat_resigned":
        kind = { case: "seatResigned", value: { seat } };
        break;
      case "turn_timed_out":
        kind = { case: "turnTimedOut", value: { seat, timeouts: Number(e["timeouts"]), forfeited: Boolean(e["forfeited"]), bot: String(e["bot"] ?? "") } };
        break;
      default:
        return null; // a kind a later format adds: the step shows without words
    }
    return create(EventSchema, { version, kind });
  }
}

type EventInit = MessageInitShape<typeof EventSchema>;

/** A record's finish reason ("target", "hand_limit", ...) as the API's enum. */
function finishReason(value: unknown): FinishReason {
  const found = (FinishReason as unknown as Record<string, FinishReason | undefined>)[String(value).toUpperCase()];
  return found ?? FinishReason.UNSPECIFIED;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function same(a: Card, b: Card): boolean {
  return a.suit === b.suit && a.rank === b.rank && a.copy === b.copy;
}

/** `cards` without each of `gone` (once each). */
function without(cards: readonly Card[], gone: readonly Card[]): Card[] {
  const left = [...cards];
  for (const card of gone) {
    const at = left.findIndex((c) => same(c, card));
    if (at >= 0) left.splice(at, 1);
  }
  return left;
}

