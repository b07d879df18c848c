// The replay of a finished game (#/games/<id>/replay): its record (GetGameRecord, with this
// tab's seat token if it holds one) stepped through play by play, every seat's hand shown.
import { asSeat, scopaErrorInfo, type Card, type ScopaClient } from "@scopa/client";
import type { CallOptions } from "@connectrpc/connect";
import { cardCode, cardFace, cardLabel, cardsInWords, italianName, useDeck } from "./cards.js";
import { h, replace } from "./dom.js";
import { errorInWords, scoringLines, seatName, sideName } from "./messages.js";
import { readRecord, type Replay, type ReplayStep } from "./record.js";

/** What the replay screen needs from the page. */
export interface ReplayScreenInit {
  readonly client: ScopaClient;
  readonly name: string;
  readonly token: string | null;
  readonly root: HTMLElement;
  /** The link back to the game's own screen. */
  readonly gameLink: string;
}

/** A finished game's replay: renders into `root` until stopped. */
export class ReplayScreen {
  private replay: Replay | undefined;
  private at = 0;
  private error: { text: string; reason: string } | undefined;
  private readonly abort = new AbortController();

  constructor(private readonly init: ReplayScreenInit) {}

  /** Fetches the record and shows its first step. */
  start(): void {
    document.addEventListener("keydown", this.onKey);
    this.render();
    const base: CallOptions = { signal: this.abort.signal };
    const options = this.init.token ? asSeat(this.init.token, base) : base;
    this.init.client
      .getGameRecord({ name: this.init.name }, options)
      .then((response) => {
        const replay = readRecord(response.record?.recordJson ?? "");
        useDeck(replay.deckSize);
        this.replay = replay;
        this.render();
      })
      .catch((failure: unknown) => {
        if (this.abort.signal.aborted) return;
        const info = scopaErrorInfo(failure);
        this.error =
          info.reason === "PERMISSION_DENIED" && !this.init.token
            ? { text: "This game's record is for its players: open the replay from a player's own tab.", reason: info.reason }
            : info.reason
              ? errorInWords(failure)
              : { text: "This record could not be read.", reason: failure instanceof Error ? failure.message : "UNKNOWN" };
        this.render();
      });
  }

  /** Stops (the page moves elsewhere). */
  stop(): void {
    this.abort.abort();
    document.removeEventListener("keydown", this.onKey);
  }

  /** Left and right arrows step back and forward (not while a form control has the keys). */
  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target && ["SELECT", "INPUT", "TEXTAREA"].includes(target.tagName)) return;
    if (event.key === "ArrowLeft") this.go(this.at - 1, "replay-prev");
    else if (event.key === "ArrowRight") this.go(this.at + 1, "replay-next");
  };

  /** Shows step `index` (kept within the record), keeping the focus on `focusKey`'s control. */
  private go(index: number, focusKey?: string): void {
    const steps = this.replay?.steps.length ?? 0;
    if (steps === 0) return;
    this.at = Math.max(0, Math.min(steps - 1, index));
    this.render();
    if (focusKey) this.init.root.querySelector<HTMLElement>(`[data-key='${focusKey}']`)?.focus();
  }

  private render(): void {
    const replay = this.replay;
    const header = h(
      "header",
      { class: "game-header" },
      h("h1", {}, "Replay"),
      h("a", { href: this.init.gameLink, "data-key": "replay-game" }, "Back to the game"),
    );
    if (replay === undefined) {
      const error = this.error;
      replace(
        this.init.root,
        h(
          "div",
          { class: "replay", "data-state": error ? "error" : "loading" },
          header,
          error
            ? h("p", { class: "error", role: "alert", "data-reason": error.reason }, error.text, h("span", { class: "reason" }, ` (${error.reason})`))
            : h("p", { role: "status" }, "Loading the game's record…"),
        ),
      );
      return;
    }
    const step = replay.steps[this.at];
    replace(
      this.init.root,
      h(
        "div",
        { class: "replay", "data-state": "ready", "data-step": this.at, "data-steps": replay.steps.length, "data-hand": step?.hand ?? 0, "data-version": step?.version ?? 0 },
        header,
        this.controls(replay),
        step ? this.stepView(replay, step) : h("p", { class: "empty" }, "This game ended before its first hand."),
      ),
    );
  }

  private controls(replay: Replay): HTMLElement {
    const steps = replay.steps.length;
    const step = replay.steps[this.at];
    const select = h(
      "select",
      { id: "replay-hand", "data-key": "replay-hand", "aria-label": "Go to hand" },
      ...replay.hands.map((hand) => h("option", { value: hand.first, selected: hand.hand === step?.hand }, `Hand ${hand.hand}`)),
    );
    select.addEventListener("change", () => this.go(Number(select.value), "replay-hand"));
    return h(
      "nav",
      { class: "replay-controls", "aria-label": "Replay steps" },
      h("button", { type: "button", "data-key": "replay-prev", disabled: this.at <= 0, onclick: () => this.go(this.at - 1, "replay-prev") }, "◀ Previous"),
      h("span", { class: "replay-position", role: "status" }, steps ? `Step ${this.at + 1} of ${steps}` : "No steps"),
      h("button", { type: "button", "data-key": "replay-next", disabled: this.at >= steps - 1, onclick: () => this.go(this.at + 1, "replay-next") }, "Next ▶"),
      h("label", { class: "field" }, "Hand ", select),
      h("p", { class: "hint" }, "The ← and → keys step too."),
    );
  }

  private stepView(replay: Replay, step: ReplayStep): HTMLElement {
    const view = replay.view;
    const scores = step.scores.map((score, side) => `${sideName(view, side)}: ${score}`).join("; ");
    return h(
      "div",
      { class: "replay-step" },
      h("section", { class: "events", "aria-label": "What happened" }, h("h2", {}, `Hand ${step.hand}`), h("ol", { "aria-live": "polite" }, ...step.told.map((text) => h("li", {}, text))), h("p", { class: "replay-scores" }, `Score: ${scores}.`)),
      h(
        "section",
        { class: "replay-hands", "aria-label": "Hands" },
        ...step.hands.map((hand, seat) =>
          h(
            "div",
            { class: `replay-hand${step.seat === seat ? " to-play" : ""}`, "data-seat": seat },
            h("h2", {}, `${seatName(view, seat)}'s hand`, step.seat === seat ? h("span", { class: "turn-mark" }, " ◀ this step") : null),
            cardList(hand, "No cards in hand."),
          ),
        ),
      ),
      h(
        "section",
        { class: "table", "aria-label": "Table" },
        h("h2", {}, `Table (${step.table.length})`),
        step.played ? h("p", { class: "replay-played" }, playedWords(replay, step)) : null,
        cardList(step.table, "The table is empty."),
        step.farms.length > 0
          ? h(
              "ul",
              { class: "farms", "aria-label": "Farms" },
              ...step.farms.map((farm) =>
                h("li", { class: "farm", "data-value": farm.value }, h("span", { class: "farm-label" }, `Farm of ${farm.value} (${seatName(view, farm.owner)})`), cardList(farm.cards, "")),
              ),
            )
          : null,
      ),
      step.scored
        ? h(
            "section",
            { class: "replay-scoring", "aria-label": "The hand's scoring" },
            h("h2", {}, `Hand ${step.scored.handNumber} scored`),
            h("ul", {}, ...scoringLines(view, step.scored).map((line) => h("li", {}, line))),
          )
        : null,
    );
  }
}

/** "Ann played Sette di denari and took Sette di coppe." for the step's play. */
function playedWords(replay: Replay, step: ReplayStep): string {
  const who = seatName(replay.view, step.seat ?? 0);
  const card = step.played?.card ? italianName(step.played.card) : "a card";
  const taken = step.played?.captured ?? [];
  return taken.length ? `${who} played ${card} and took ${cardsInWords(taken)}.` : `${who} played ${card}.`;
}

function cardList(cards: readonly Card[], empty: string): HTMLElement {
  if (cards.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "ul",
    { class: "cards" },
    ...cards.map((card) => h("li", { class: "card", role: "img", "aria-label": cardLabel(card), title: italianName(card), "data-card": cardCode(card) }, cardFace(card))),
  );
}
