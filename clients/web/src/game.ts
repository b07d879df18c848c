// The game screen: the seat's view kept live by a realtime session (one WebSocket: the
// updates come and the plays go over it), or, where no session can be opened (no WebSocket, a
// proxy that refuses the upgrade), by WatchGame with plays sent by PlayCard and TakeAction; and
// a Resign button (ResignGame, after a confirmation). A finished game offers its seats a Rematch
// button (RematchGame); the screen follows the rematch as soon as the game's view names it,
// whichever seat asked (the session and WatchGame with followRematch stay open for it).
import {
  asSeat,
  ClaimAnswer,
  FinishReason,
  GameStatus,
  scopaErrorInfo,
  type Action,
  type Card,
  type Event,
  type Farm,
  type GameView,
  type HandResult,
  type LegalMove,
  type ScopaClient,
  ActionSchema,
  LegalMoveSchema,
  ScopaSession,
  ScopaSessionClosed,
  ScopaSessionError,
} from "@scopa/client";
import { create, equals } from "@bufbuild/protobuf";
import type { CallOptions } from "@connectrpc/connect";
import { requestId, type Bearer } from "./api.js";
import {
  captureInWords,
  captureQuestion,
  cardCode,
  cardFace,
  cardLabel,
  cardsInWords,
  italianName,
  sameCard,
  useDeck,
} from "./cards.js";
import { h, replace } from "./dom.js";
import { announce, categoryName, clockInWords, errorInWords, scoringLines, seatName, sideName } from "./messages.js";
import { lastPlayView, latestPlay, type LastPlay } from "./lastplay.js";

/** How many announcements stay on screen. */
const ANNOUNCEMENTS_SHOWN = 12;
/** Reconnection back-off bounds, in milliseconds. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 8_000;
/** Errors after which watching again cannot help. */
const FINAL_REASONS = new Set(["GAME_NOT_FOUND", "UNAUTHENTICATED", "PERMISSION_DENIED", "INVALID_ARGUMENT"]);

/** One open seat's invite, as CreateGame returned it to this tab. */
export interface Invite {
  readonly seat: number;
  readonly link: string;
}

/** What the game screen needs from the page. */
export interface GameScreenInit {
  readonly client: ScopaClient;
  readonly name: string;
  readonly token: string | null;
  /** The signed-in player's access token, for a session's hello when there is no seat token. */
  readonly bearer?: Bearer;
  readonly invites: readonly Invite[];
  readonly root: HTMLElement;
  /** The link to the game's replay (shown once it is over). */
  readonly replayLink: string;
  /** Goes to the rematch `game` (this seat's token acts for it too). */
  readonly onRematch: (game: string) => void;
}

/** The live game for one seat (or a spectator): renders into `root` until stopped. */
export class GameScreen {
  private view: GameView | undefined;
  private version = 0;
  /** Who is online: each seat's last known presence, and the spectator count (views of
   * writes carry none, so the last watch message's stay). */
  private readonly online = new Map<number, boolean>();
  private spectators: number | undefined;
  private announced = 0;
  private lastPlay: LastPlay | undefined;
  private readonly announcements: string[] = [];
  private choosing: Card | undefined;
  private highlighted: readonly Card[] = [];
  private error: { text: string; reason: string } | undefined;
  private connection: "connecting" | "live" | "reconnecting" | "ended" = "connecting";
  private reconnects = 0;
  /** The open session, while there is one. */
  private session: ScopaSession | undefined;
  /** How the screen follows the game: a session, or (no session could be opened) WatchGame. */
  private transport: "session" | "stream" = "session";
  private busy = false;
  /** A play or action asked for while another was on its way (the stream may show the turn
   * before that request's answer is in): taken once it has its answer, if still offered. */
  private queued: (() => void) | undefined;
  /** The Resign button was pressed: the screen asks to confirm before ResignGame. */
  private confirmingResign = false;
  /** The request id of the resignation being confirmed: a retried Yes resends the same request. */
  private resignId = "";
  private readonly abort = new AbortController();
  private clock: ReturnType<typeof setInterval> | undefined;
  /** The rematch this screen went to (once: a later view naming it again changes nothing). */
  private followed = "";
  /** Preset id -> display name, from ListRulesets (the heading falls back to the id). */
  private readonly presetNames = new Map<string, string>();

  constructor(private readonly init: GameScreenInit) {}

  /** Starts watching the game. */
  start(): void {
    document.addEventListener("keydown", this.onKey);
    this.init.client
      .listRulesets({}, { signal: this.abort.signal })
      .then((response) => {
        for (const r of response.rulesets) if (r.displayName) this.presetNames.set(r.id, r.displayName);
        this.render();
      })
      .catch(() => undefined); // the heading keeps the preset id
    this.render();
    this.clock = setInterval(() => this.tick(), 1000);
    void this.watch();
  }

  /**
   * The signed-in player's access token was renewed: the open session (which authenticated with
   * the old one in its hello) is closed, and the next one says hello with the new token.
   */
  renewed(): void {
    if (!this.init.token) this.session?.close();
  }

  /** Stops watching (the page moves elsewhere). */
  stop(): void {
    this.abort.abort();
    document.removeEventListener("keydown", this.onKey);
    if (this.clock !== undefined) clearInterval(this.clock);
  }

  /** Counts the turn clock down on screen (the view says when the turn ends, not how long is left). */
  private tick(): void {
    for (const clock of this.init.root.querySelectorAll<HTMLElement>(".turn-clock[data-deadline]")) {
      clock.textContent = clockText(Number(clock.dataset["deadline"]));
    }
  }

  private options(): CallOptions {
    const base: CallOptions = { signal: this.abort.signal };
    return this.init.token ? asSeat(this.init.token, base) : base;
  }

  /**
   * A session (or WatchGame) from the last version seen, again after every drop, until the game
   * ends. The first session that cannot be opened at all (no WebSocket, an upgrade refused)
   * turns the screen to WatchGame for good.
   */
  private async watch(): Promise<void> {
    let delay = RETRY_FIRST_MS;
    let opened = false;
    while (!this.abort.signal.aborted) {
      if (this.transport === "session") {
        const outcome = await this.follow();
        if (outcome === "opened") {
          opened = true;
          delay = RETRY_FIRST_MS;
        } else if (outcome === "final") {
          return;
        } else if (!opened) {
          this.transport = "stream";
          continue;
        }
        if (this.view?.status === GameStatus.FINISHED && this.view.rematchGame) {
          this.setConnection("ended");
          return;
        }
        if (this.abort.signal.aborted) return;
        this.reconnects += 1;
        this.setConnection("reconnecting");
        await new Promise((ok) => setTimeout(ok, delay));
        delay = Math.min(delay * 2, RETRY_MAX_MS);
        continue;
      }
      try {
        const request = { name: this.init.name, fromVersion: this.version, followRematch: true };
        const stream = this.init.client.watchGame(request, this.options());
        for await (const message of stream) {
          this.setConnection("live");
          delay = RETRY_FIRST_MS;
          if (message.view) this.apply(message.view, message.events);
        }
        if (this.view?.status === GameStatus.FINISHED && this.view.rematchGame) {
          this.setConnection("ended");
          return;
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        const info = scopaErrorInfo(error);
        if (FINAL_REASONS.has(info.reason)) {
          this.error = errorInWords(error);
          this.setConnection("ended");
          return;
        }
      }
      this.reconnects += 1;
      this.setConnection("reconnecting");
      await new Promise((ok) => setTimeout(ok, delay));
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }

  /**
   * One session until its connection closes: "opened" when it was open, "failed" when it could
   * not be opened, "final" when the server refused it for good (the error is shown).
   */
  private async follow(): Promise<"opened" | "failed" | "final"> {
    let session: ScopaSession;
    try {
      const token = this.init.token || (await this.init.bearer?.()) || "";
      const options = { token, lastVersion: this.version };
      session = await ScopaSession.open(window.location.origin, this.init.name, options);
    } catch (error) {
      if (error instanceof ScopaSessionError) {
        if (FINAL_REASONS.has(error.reason)) {
          this.error = errorInWords(error);
          this.setConnection("ended");
          return "final";
        }
        return "opened"; // the server answered (e.g. draining): a session will work again
      }
      return "failed";
    }
    if (this.abort.signal.aborted) {
      session.close();
      return "opened";
    }
    this.session = session;
    const closed = new Promise<void>((ok) => {
      session.onClose = () => ok();
      this.abort.signal.addEventListener("abort", () => session.close());
    });
    session.onUpdate = (update) => {
      if (update.view) this.apply(update.view, update.events);
    };
    this.setConnection("live");
    if (session.welcome.view) this.apply(session.welcome.view, session.welcome.events);
    await closed;
    this.session = undefined;
    return "opened";
  }

  /**
   * Takes `action` over the session when one is open: true once it is acknowledged. False when
   * there is none, or it closed before answering: the caller then sends the same request (the
   * same request id, so it is applied once) as a call.
   */
  private async viaSession(action: Action, id: string): Promise<boolean> {
    const session = this.session;
    if (session === undefined) return false;
    try {
      const update = await session.act(action, id);
      if (update.view) this.apply(update.view, update.events);
      return true;
    } catch (error) {
      if (error instanceof ScopaSessionClosed) return false;
      throw error;
    }
  }

  private setConnection(state: GameScreen["connection"]): void {
    if (this.connection === state) return;
    this.connection = state;
    this.render();
  }

  /**
   * Takes a newer view and announces the events not announced yet. A view that comes without
   * its events (ResignGame's response) leaves them to the watch stream's copy of that version.
   */
  private apply(view: GameView, events: readonly Event[] | undefined): void {
    if (this.view !== undefined && view.version < this.version) return;
    useDeck(view.deckSize); // the 52-card deck names ranks 8..13 its own way
    this.lastPlay = latestPlay(events ?? [], this.announced, Date.now()) ?? this.lastPlay;
    for (const event of events ?? []) {
      if (event.version <= this.announced) continue;
      const text = announce(view, event);
      const lines = event.kind.case === "handScored" && event.kind.value.result ? scoringLines(view, event.kind.value.result) : [];
      if (text !== null) this.announcements.unshift(text, ...lines);
    }
    if (events !== undefined) this.announced = Math.max(this.announced, view.version);
    this.announcements.splice(ANNOUNCEMENTS_SHOWN);
    const changed = this.view !== undefined && this.view.version !== view.version;
    for (const seat of view.seats) if (seat.connected !== undefined) this.online.set(seat.seat, seat.connected);
    if (view.spectatorCount !== undefined) this.spectators = view.spectatorCount;
    this.view = view;
    this.version = view.version;
    if (changed) {
      this.choosing = undefined;
      this.highlighted = [];
    }
    this.render();
    if (view.rematchGame) this.goToRematch(view.rematchGame);
  }

  /** Asks for the finished game's rematch (every seat that asks gets the same one). */
  private async rematch(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = undefined;
    try {
      const response = await this.init.client.rematchGame({ name: this.init.name }, this.options());
      this.goToRematch(response.game);
    } catch (error) {
      this.error = errorInWords(error);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  private goToRematch(game: string): void {
    if (this.followed || this.abort.signal.aborted) return;
    this.followed = game;
    this.init.onRematch(game);
  }

  private readonly onKey = (event: KeyboardEvent): void => {
    if (event.key === "Escape" && this.confirmingResign) {
      this.askResign(false);
    } else if (event.key === "Escape" && this.choosing !== undefined) {
      this.choosing = undefined;
      this.highlighted = [];
      this.render();
    }
  };

  /** A card of the hand was chosen: play it, or ask which capture when there are several. */
  private pick(card: Card): void {
    const moves = this.movesOf(card);
    if (moves.length > 1) {
      this.choosing = card;
      this.highlighted = moves[0]?.capture ?? [];
      this.error = undefined;
      this.render();
      document.querySelector<HTMLElement>("[data-key='choice-0']")?.focus();
      return;
    }
    // No legal move (not our turn, or a play the rules refuse): the server says why.
    void this.play(card, moves[0]);
  }

  private movesOf(card: Card): LegalMove[] {
    return (this.view?.legalMoves ?? []).filter((move) => move.card !== undefined && sameCard(move.card, card));
  }

  private async play(card: Card, move: LegalMove | undefined): Promise<void> {
    if (this.busy) {
      this.queued = () => {
        const offered = move !== undefined && this.movesOf(card).some((m) => equals(LegalMoveSchema, m, move));
        if (offered && this.view?.turn === this.view?.seat) void this.play(card, move);
      };
      return;
    }
    this.busy = true;
    this.error = undefined;
    const id = requestId();
    try {
      const capture = move ? { cards: move.capture } : undefined;
      const action = create(ActionSchema, { kind: { case: "playCard", value: { card, capture } } });
      if (await this.viaSession(action, id)) {
        this.choosing = undefined;
        this.highlighted = [];
        return;
      }
      const response = await this.init.client.playCard(
        {
          name: this.init.name,
          card,
          capture: move ? { cards: move.capture } : undefined,
          requestId: id,
        },
        this.options(),
      );
      this.choosing = undefined;
      this.highlighted = [];
      if (response.view) this.apply(response.view, response.events);
    } catch (error) {
      this.error = errorInWords(error);
    } finally {
      this.settle();
    }
  }

  /** A request has its answer: the screen redrawn, then the play or action queued behind it. */
  private settle(): void {
    this.busy = false;
    this.render();
    const next = this.queued;
    this.queued = undefined;
    next?.();
  }

  /** Takes one of the view's legal actions other than a play (a declaration, a claimed sweep, an answer). */
  private async act(action: Action): Promise<void> {
    if (this.busy) {
      this.queued = () => {
        if (this.view?.legalActions.some((a) => equals(ActionSchema, a, action))) void this.act(action);
      };
      return;
    }
    this.busy = true;
    this.error = undefined;
    const id = requestId();
    try {
      if (await this.viaSession(action, id)) return;
      const response = await this.init.client.takeAction(
        { name: this.init.name, action, requestId: id },
        this.options(),
      );
      if (response.view) this.apply(response.view, response.events);
    } catch (error) {
      this.error = errorInWords(error);
    } finally {
      this.settle();
    }
  }

  /** Shows (or withdraws) the question "resign?", with the focus on the answer that keeps playing. */
  private askResign(asking: boolean): void {
    this.confirmingResign = asking;
    if (asking) this.resignId = requestId();
    this.error = undefined;
    this.render();
    const key = asking ? "resign-cancel" : "resign";
    this.init.root.querySelector<HTMLElement>(`[data-key='${key}']`)?.focus();
  }

  /** The seat resigns (confirmed): the game ends at once and the other side wins. */
  private async resign(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = undefined;
    try {
      const response = await this.init.client.resignGame({ name: this.init.name, requestId: this.resignId }, this.options());
      this.confirmingResign = false;
      if (response.view) this.apply(response.view, undefined);
    } catch (error) {
      this.error = errorInWords(error);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** Redraws the whole screen, keeping the keyboard focus on the same control. */
  private render(): void {
    const focused = document.activeElement?.getAttribute("data-key");
    const view = this.view;
    replace(
      this.init.root,
      view === undefined
        ? h("p", { class: "loading" }, this.error ? "" : "Loading the game…")
        : this.screen(view),
      this.errorLine(),
    );
    if (focused) document.querySelector<HTMLElement>(`[data-key='${focused}']`)?.focus();
  }

  private errorLine(): HTMLElement {
    const error = this.error;
    return h(
      "p",
      { class: "error", role: "alert", "data-reason": error?.reason ?? "" },
      error ? error.text : "",
      error ? h("span", { class: "reason" }, ` (${error.reason})`) : null,
    );
  }

  private screen(view: GameView): HTMLElement {
    return h(
      "div",
      {
        class: "game",
        "data-status": GameStatus[view.status],
        "data-version": view.version,
        "data-connection": this.connection,
        "data-reconnects": this.reconnects,
        "data-transport": this.transport,
        "data-finish-reason": view.status === GameStatus.FINISHED ? FinishReason[view.finishReason] : null,
      },
      this.header(view),
      this.banner(view),
      view.status === GameStatus.FINISHED
        ? h("p", { class: "replay-line" }, h("a", { class: "replay-link", href: this.init.replayLink, "data-key": "replay" }, "Replay the game, hand by hand"))
        : null,
      this.turnClock(view),
      this.seats(view),
      this.invites(view),
      this.table(view),
      this.choice(view),
      this.hand(view),
      this.declarations(view),
      this.builds(view),
      this.resignation(view),
      this.rematchOffer(view),
      h(
        "section",
        { class: "events", "aria-label": "What happened" },
        h("h2", {}, "What happened"),
        h("ol", { "aria-live": "polite" }, ...this.announcements.map((text) => h("li", {}, text))),
      ),
      this.sheets(view),
    );
  }

  private header(view: GameView): HTMLElement {
    const words = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", ended: "" };
    return h(
      "header",
      { class: "game-header" },
      h("h1", {}, this.presetNames.get(view.preset) ?? view.preset.replaceAll("_", " ")),
      h("span", {}, `Hand ${view.handNumber}`),
      h("span", {}, `Stock: ${view.stockSize} cards`),
      this.clockInfo(view),
      h("span", { class: `connection ${this.connection}` }, words[this.connection]),
    );
  }

  private banner(view: GameView): HTMLElement {
    let text: string;
    let turn = "none";
    if (view.status === GameStatus.FINISHED) {
      const winners = view.winners.map((side) => sideName(view, side)).join(" and ");
      const why = finishWords(view);
      text = view.seat !== undefined && view.winners.includes(view.seats[view.seat]?.side ?? -1)
        ? `You won! ${winners} wins${why}.`
        : `${winners} won${why}.`;
    } else if (view.status === GameStatus.WAITING_FOR_PLAYERS) {
      text = "Waiting for players to join…";
    } else if (view.turn !== undefined && view.turn === view.seat && view.phase?.claim !== undefined) {
      text = `${seatName(view, view.phase.claim.seat)} claims a sweep: do you trust it?`;
      turn = "mine";
    } else if (view.turn !== undefined && view.turn === view.seat) {
      text = "Your turn: play a card.";
      turn = "mine";
    } else if (view.turn !== undefined && view.phase?.claim !== undefined) {
      const claimer = view.phase.claim.seat === view.seat ? "your" : `${seatName(view, view.phase.claim.seat)}'s`;
      text = `${seatName(view, view.turn)} to answer ${claimer} claimed sweep.`;
      turn = "other";
    } else {
      text = view.turn === undefined ? "" : `${seatName(view, view.turn)} to play.`;
      turn = "other";
    }
    return h("p", { class: `banner ${turn}`, role: "status", "data-turn": turn }, text);
  }

  /** The game's turn clock and its timeout bot (GameView.turn_timeout_s, timeout_bot), if it has one. */
  private clockInfo(view: GameView): HTMLElement | null {
    const words = clockInWords(view);
    if (words === null) return null;
    return h("span", { class: "clock-info", "data-timeout-bot": view.timeoutBot }, `Turn clock: ${words}`);
  }

  /** The time left for the current turn, when the game has a turn clock (GameView.turn_deadline). */
  private turnClock(view: GameView): HTMLElement | null {
    const deadline = view.turnDeadline;
    if (deadline === undefined || view.status !== GameStatus.ACTIVE) return null;
    const at = Number(deadline.seconds) * 1000 + Math.floor(deadline.nanos / 1e6);
    const whose = view.turn !== undefined && view.turn === view.seat ? "your" : "this";
    return h(
      "p",
      { class: "turn-clock-line" },
      `Time left for ${whose} turn: `,
      h("span", { class: "turn-clock", role: "timer", "data-deadline": at }, clockText(at)),
    );
  }

  private seats(view: GameView): HTMLElement {
    const teams = view.sides.some((side) => side.seats.length > 1);
    const rows = view.seats.map((seat) => {
      const side = view.sides[seat.side];
      const who = [
        seat.displayName || `Seat ${seat.seat + 1}`,
        teams ? ` · team ${seat.side + 1}` : "",
        seat.seat === view.seat ? " (you)" : "",
        seat.bot ? ` (bot: ${seat.bot})` : "",
        seat.open ? " (open)" : "",
        seat.resigned ? " (resigned)" : "",
      ].join("");
      return h(
        "tr",
        { "data-seat": seat.seat, class: view.turn === seat.seat ? "to-play" : null },
        h(
          "th",
          { scope: "row" },
          view.turn === seat.seat ? h("span", { class: "turn-mark", "aria-label": "to play" }, "▶ ") : null,
          this.presenceDot(seat.seat, seat.bot !== "" || seat.open),
          who,
        ),
        h("td", { "data-hand-size": seat.handSize }, seat.handSize),
        h("td", { "data-side-score": seat.side }, side?.score ?? 0),
        h("td", {}, side?.capturedCount ?? 0),
        h("td", { "data-side-sweeps": seat.side }, side?.sweeps ?? 0),
      );
    });
    return h(
      "section",
      { class: "seats", "aria-label": "Players" },
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["Player", "Cards in hand", teams ? "Team score" : "Score", "Captured", "Sweeps"].map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
      this.spectators ? h("p", { class: "spectators", "data-spectators": this.spectators }, `${this.spectators} watching`) : null,
    );
  }

  /** A small dot: the seat's player has the game open now (none for bots and open seats). */
  private presenceDot(seat: number, nobody: boolean): HTMLElement | null {
    const online = this.online.get(seat);
    if (nobody || online === undefined) return null;
    const label = online ? "online" : "offline";
    return h("span", { class: `presence ${label}`, "data-online": String(online), "aria-label": label, title: label }, "● ");
  }

  private invites(view: GameView): HTMLElement | null {
    const open = this.init.invites.filter((invite) => view.seats[invite.seat]?.open);
    if (open.length === 0) return null;
    return h(
      "section",
      { class: "invites", "aria-label": "Invite links" },
      h("h2", {}, "Invite players"),
      h("p", {}, "Send each link to one player; opening it in their browser takes the seat."),
      ...open.map((invite) => {
        const field = h("input", { type: "text", readonly: true, value: invite.link, "aria-label": `Invite link for seat ${invite.seat + 1}`, "data-invite": invite.seat });
        const copy = h("button", { type: "button", "data-key": `copy-${invite.seat}` }, "Copy link");
        copy.addEventListener("click", () => {
          field.select();
          const done = (): void => {
            copy.textContent = "Copied";
          };
          if (navigator.clipboard) navigator.clipboard.writeText(invite.link).then(done, () => document.execCommand("copy"));
          else if (document.execCommand("copy")) done();
        });
        return h("div", { class: "invite" }, h("label", {}, `Seat ${invite.seat + 1}`), field, copy);
      }),
    );
  }

  private table(view: GameView): HTMLElement {
    const cards = view.table.map((card) => {
      const lit = this.highlighted.some((c) => sameCard(c, card));
      return h(
        "li",
        { class: lit ? "card highlight" : "card", role: "img", "aria-label": cardLabel(card) + (lit ? ", to be captured" : ""), title: italianName(card), "data-card": cardCode(card) },
        cardFace(card),
      );
    });
    const farms = view.farms.map((farm) => this.farm(view, farm));
    return h(
      "section",
      { class: "table", "aria-label": "Table" },
      h("h2", {}, `Table (${view.table.length})`),
      this.lastPlay ? lastPlayView(view, this.lastPlay, Date.now()) : null,
      cards.length > 0 ? h("ul", { class: "cards" }, ...cards) : null,
      farms.length > 0 ? h("ul", { class: "farms", "aria-label": "Farms" }, ...farms) : null,
      cards.length + farms.length > 0 ? null : h("p", { class: "empty" }, "The table is empty."),
    );
  }

  /** A farm on the table (Scopa della fattoria): taken whole by a card of its value. */
  private farm(view: GameView, farm: Farm): HTMLElement {
    const owner = seatName(view, farm.owner);
    return h(
      "li",
      {
        class: "farm",
        "data-value": farm.value,
        "data-owner": farm.owner,
        "aria-label": `Farm of ${farm.value}, ${owner}'s: ${cardsInWords(farm.cards)}`,
      },
      h("span", { class: "farm-label" }, `Farm of ${farm.value} (${owner})`),
      h(
        "ul",
        { class: "cards" },
        ...farm.cards.map((card) =>
          h("li", { class: "card", role: "img", "aria-label": cardLabel(card), title: italianName(card), "data-card": cardCode(card) }, cardFace(card)),
        ),
      ),
    );
  }

  /** The farm builds and raises open to this seat, one button each. */
  private builds(view: GameView): HTMLElement | null {
    const builds = view.legalActions.flatMap((action) => (action.kind.case === "build" ? [{ action, b: action.kind.value }] : []));
    if (builds.length === 0) return null;
    return h(
      "section",
      { class: "declarations builds", "aria-label": "Farm builds" },
      ...builds.map(({ action, b }, index) =>
        h(
          "button",
          {
            type: "button",
            "data-key": `build-${index}`,
            "data-build": b.onto.length > 1 ? "raise" : "build",
            "data-value": b.value,
            onclick: () => void this.act(action),
          },
          `${b.onto.length > 1 ? "Raise the farm" : "Build a farm"} of ${b.value}: ${b.card ? cardsInWords([b.card]) : ""} on ${cardsInWords(b.onto)}`,
        ),
      ),
    );
  }

  private choice(view: GameView): HTMLElement | null {
    const card = this.choosing;
    if (card === undefined) return null;
    const moves = this.movesOf(card);
    return h(
      "section",
      { class: "choice", "aria-label": "Choose a capture" },
      h("h2", {}, captureQuestion(card, moves.map((move) => move.capture))),
      h(
        "div",
        { class: "options" },
        ...moves.map((move, index) =>
          h(
            "button",
            {
              type: "button",
              "data-key": `choice-${index}`,
              "data-choice": index,
              onmouseenter: () => this.highlight(move.capture),
              onfocus: () => this.highlight(move.capture),
              onclick: () => void this.play(card, move),
            },
            captureInWords(move.capture),
          ),
        ),
        h("button", { type: "button", class: "secondary", "data-key": "choice-cancel", onclick: () => this.cancelChoice() }, "Cancel"),
      ),
      h("p", { class: "hint" }, "The highlighted table cards are the ones taken. Esc cancels."),
      view.turn === view.seat ? null : h("p", {}, "It is no longer your turn."),
    );
  }

  private highlight(cards: readonly Card[]): void {
    const same = cards.length === this.highlighted.length && cards.every((c, i) => sameCard(c, this.highlighted[i] ?? c) );
    if (same) return;
    this.highlighted = cards;
    for (const element of this.init.root.querySelectorAll<HTMLElement>(".table .card")) {
      const code = element.dataset["card"];
      const lit = cards.some((c) => cardCode(c) === code);
      element.classList.toggle("highlight", lit);
    }
  }

  private cancelChoice(): void {
    this.choosing = undefined;
    this.highlighted = [];
    this.render();
    this.init.root.querySelector<HTMLElement>(".hand button")?.focus();
  }

  private hand(view: GameView): HTMLElement | null {
    if (view.seat === undefined) return null;
    const myTurn = view.turn === view.seat;
    const cards = view.hand.map((card) => {
      const moves = this.movesOf(card);
      const capture = moves.length === 1 && (moves[0]?.capture.length ?? 0) > 0;
      const hint = !myTurn ? "" : moves.length > 1 ? `, ${moves.length} captures possible` : capture ? `, captures ${cardsInWords(moves[0]?.capture ?? [])}` : moves.length === 1 ? ", lays it on the table" : ", not playable";
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `card${moves.length > 0 ? " legal" : ""}${this.choosing && sameCard(this.choosing, card) ? " chosen" : ""}`,
            "aria-label": `Play ${cardLabel(card)}${hint}`,
            title: italianName(card),
            "data-key": `hand-${cardCode(card)}`,
            "data-card": cardCode(card),
            "data-choices": moves.length,
            onclick: () => this.pick(card),
          },
          cardFace(card),
        ),
      );
    });
    return h(
      "section",
      { class: `hand${myTurn ? " my-turn" : ""}`, "aria-label": "Your hand" },
      h("h2", {}, "Your hand"),
      cards.length > 0 ? h("ul", { class: "cards" }, ...cards) : h("p", { class: "empty" }, "No cards in hand."),
    );
  }

  /** Buttons for the legal actions other than plays: declarations, claimed sweeps (Scopa fidasse) and the answers to a claim. */
  private declarations(view: GameView): HTMLElement | null {
    const counts = new Map<string, number>();
    const buttons = view.legalActions.flatMap((action) => {
      const label = actionLabel(action);
      if (label === null || action.kind.case === undefined) return [];
      const prefix = action.kind.case === "declare" ? "declare" : action.kind.case === "claimSweep" ? "claim" : "answer";
      const n = counts.get(prefix) ?? 0;
      counts.set(prefix, n + 1);
      const key = `${prefix}-${n}`;
      const kind = action.kind;
      const data = {
        "data-card": kind.case === "claimSweep" && kind.value.card ? cardCode(kind.value.card) : null,
        "data-answer": kind.case === "answerClaim" ? ClaimAnswer[kind.value.answer] : null,
      };
      return [h("button", { type: "button", "data-key": key, ...data, onclick: () => void this.act(action) }, label)];
    });
    if (buttons.length === 0) return null;
    return h("section", { class: "declarations", "aria-label": "Declarations" }, ...buttons);
  }

  /** Resign, for a seat in a running game; pressed, it asks to confirm first. */
  private resignation(view: GameView): HTMLElement | null {
    const mine = view.seat === undefined ? undefined : view.seats[view.seat];
    if (view.status !== GameStatus.ACTIVE || mine === undefined || mine.resigned) {
      this.confirmingResign = false;
      return null;
    }
    if (!this.confirmingResign) {
      return h(
        "section",
        { class: "resign", "aria-label": "Resign" },
        h("button", { type: "button", class: "secondary", "data-key": "resign", onclick: () => this.askResign(true) }, "Resign…"),
      );
    }
    const others = view.sides.filter((side) => side.side !== mine.side).map((side) => sideName(view, side.side));
    return h(
      "section",
      { class: "resign confirming", role: "alertdialog", "aria-labelledby": "resign-question" },
      h("p", { id: "resign-question" }, `Resign this game? It ends now and ${others.join(" and ") || "the other side"} ${others.length > 1 ? "win" : "wins"}. This cannot be undone.`),
      h(
        "div",
        { class: "options" },
        h("button", { type: "button", class: "danger", "data-key": "resign-confirm", disabled: this.busy, onclick: () => void this.resign() }, "Yes, resign"),
        h("button", { type: "button", class: "secondary", "data-key": "resign-cancel", onclick: () => this.askResign(false) }, "Keep playing"),
      ),
    );
  }

  private rematchOffer(view: GameView): HTMLElement | null {
    if (view.status !== GameStatus.FINISHED || view.seat === undefined) return null;
    return h(
      "section",
      { class: "rematch", "aria-label": "Rematch" },
      h("button", { type: "button", "data-key": "rematch", disabled: this.busy, onclick: () => void this.rematch() }, "Rematch"),
    );
  }

  private sheets(view: GameView): HTMLElement | null {
    const results = view.handResults;
    const last = results[results.length - 1];
    if (last === undefined) return null;
    const older = results.slice(0, -1).reverse();
    return h(
      "section",
      { class: "sheets", "aria-label": "Score sheets" },
      h("h2", {}, view.status === GameStatus.FINISHED ? "Final score sheet" : `Score sheet of hand ${last.handNumber}`),
      this.sheet(view, last),
      ...older.map((result) => h("details", {}, h("summary", {}, `Hand ${result.handNumber}`), this.sheet(view, result))),
    );
  }

  private sheet(view: GameView, result: HandResult): HTMLElement {
    const sides = view.sides.map((side) => side.side);
    const row = (label: string, cells: (string | number)[], cls?: string): HTMLElement =>
      h("tr", { class: cls ?? null }, h("th", { scope: "row" }, label), ...cells.map((c) => h("td", {}, c)));
    return h(
      "table",
      { class: "sheet", "data-hand": result.handNumber },
      h("caption", {}, `Hand ${result.handNumber}`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Category"), ...sides.map((side) => h("th", { scope: "col" }, sideName(view, side))))),
      h(
        "tbody",
        {},
        ...result.lines.map((line) =>
          row(
            categoryName(line.name),
            sides.map((side) => {
              const value = line.values[side];
              const points = line.points[side] ?? 0;
              return value === undefined ? points : `${points} (${Number.isInteger(value) ? value : value.toFixed(1)})`;
            }),
          ),
        ),
        row("Hand total", sides.map((side) => result.totals[side] ?? 0), "total"),
        row("Game score", sides.map((side) => result.scores[side] ?? 0), "score"),
      ),
    );
  }
}

/** Why the game ended, in parentheses after its winners, where the score alone does not say. */
function finishWords(view: GameView): string {
  switch (view.finishReason) {
    case FinishReason.RESIGNED:
      return ` (${resignedWords(view)})`;
    case FinishReason.HAND_LIMIT:
      return " (the game's hand limit was reached)";
    default:
      return "";
  }
}

/** Who resigned, in words for the reader: "you resigned", "Ann resigned" (or "a player resigned"). */
function resignedWords(view: GameView): string {
  const who = view.seats.filter((seat) => seat.resigned).map((seat) => (seat.seat === view.seat ? "you" : seatName(view, seat.seat)));
  return `${who.length > 0 ? who.join(" and ") : "a player"} resigned`;
}

/** "1:05" for the time from now to `deadline` (milliseconds since the epoch); "0:00" once past. */
function clockText(deadline: number): string {
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** The button text of an action that is not a play, or null for a play. */
function actionLabel(action: Action): string | null {
  switch (action.kind.case) {
    case "declare":
      return `Declare ${action.kind.value.name}: ${cardsInWords(action.kind.value.cards)}`;
    case "claimSweep":
      return action.kind.value.card ? `Claim a sweep with ${cardsInWords([action.kind.value.card])} (ti fidi?)` : null;
    case "answerClaim":
      return action.kind.value.answer === ClaimAnswer.TRUST ? "Trust the sweep" : "Doubt the sweep";
    default:
      return null;
  }
}
