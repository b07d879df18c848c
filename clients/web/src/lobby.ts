// The lobby: the public games waiting for players (ListGames), each with a Join button that
// takes its lowest open seat (JoinGame without an invite code). Refreshed on demand and every
// few seconds while shown.
import type { GameView, ScopaClient } from "@scopa/client";
import { requestId } from "./api.js";
import { h, replace } from "./dom.js";
import { errorInWords } from "./messages.js";

/** How often the list refreshes itself, in milliseconds. */
const REFRESH_MS = 5_000;
/** The games one page of the lobby shows. */
const PAGE_SIZE = 20;

/** What the lobby hands back once this tab holds a seat of `game`. */
export type Joined = (game: string, token: string) => void;

/** Seconds since the epoch of a protobuf Timestamp, as a Date. */
function dateOf(view: GameView): Date | undefined {
  const t = view.createTime;
  return t === undefined ? undefined : new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6));
}

/** The lobby panel, rendered into `root` until stopped. */
export class LobbyPanel {
  private games: readonly GameView[] = [];
  private listError: { text: string; reason: string } | undefined;
  private joinError: { text: string; reason: string } | undefined;
  private stopped = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private joining = false;
  /** ListGames answers received (data-refreshes: tests wait for a fresh list). */
  private refreshes = 0;
  private readonly name = h("input", { type: "text", id: "lobby-name", maxlength: 64, placeholder: "Your name", autocomplete: "nickname" });
  private readonly list = h("div", { class: "lobby-list" });
  private readonly errorLine = h("p", { class: "error", role: "alert" });
  private readonly section = h(
    "section",
    { class: "lobby", "aria-labelledby": "lobby-title", "data-games": 0, "data-refreshes": 0 },
    h("h2", { id: "lobby-title" }, "Lobby: public games waiting for players"),
    h("label", { class: "field" }, "Your name ", this.name),
    this.list,
    h("button", { type: "button", class: "secondary", id: "lobby-refresh", onclick: () => void this.refresh() }, "Refresh the lobby"),
    this.errorLine,
  );
  /** One request id per game: a retried Join (e.g. a double click) gets the same seat. */
  private readonly requestIds = new Map<string, string>();

  constructor(
    private readonly client: ScopaClient,
    private readonly root: HTMLElement,
    private readonly joined: Joined,
  ) {}

  /** Shows the lobby and keeps it fresh. */
  start(): void {
    replace(this.root, this.section);
    this.render();
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
  }

  /** Stops refreshing (the page moves elsewhere). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async refresh(): Promise<void> {
    try {
      this.games = (await this.client.listGames({ pageSize: PAGE_SIZE })).games;
      this.listError = undefined;
      this.refreshes += 1;
    } catch (failure) {
      this.listError = errorInWords(failure);
    }
    this.render();
  }

  /** Redraws the list and the error line; the name field and Refresh stay (and keep the focus). */
  private render(): void {
    if (this.stopped) return;
    const error = this.joinError ?? this.listError;
    const focused = document.activeElement?.getAttribute("data-key");
    const rows = this.games.map((game) => this.row(game));
    this.section.setAttribute("data-games", String(this.games.length));
    this.section.setAttribute("data-refreshes", String(this.refreshes));
    replace(
      this.list,
      rows.length === 0
        ? h("p", { class: "hint", id: "lobby-empty" }, "No public game is waiting for players right now.")
        : h(
            "table",
            { class: "lobby-games" },
            h("caption", { class: "hint" }, "Newest first"),
            h(
              "thead",
              {},
              h("tr", {}, h("th", { scope: "col" }, "Game"), h("th", { scope: "col" }, "Seats taken"), h("th", { scope: "col" }, "Created"), h("th", { scope: "col" }, h("span", { class: "hint" }, "Join"))),
            ),
            h("tbody", {}, ...rows),
          ),
    );
    this.errorLine.textContent = error?.text ?? "";
    this.errorLine.dataset["reason"] = error?.reason ?? "";
    if (focused?.startsWith("join:")) document.querySelector<HTMLElement>(`[data-key='${focused}']`)?.focus();
  }

  private row(game: GameView): HTMLElement {
    const taken = game.seats.filter((seat) => !seat.open).length;
    const created = dateOf(game);
    const preset = game.preset.replaceAll("_", " ");
    const players = game.seats.filter((seat) => !seat.open).map((seat) => seat.displayName).filter((n) => n !== "");
    return h(
      "tr",
      { "data-game": game.name },
      h("th", { scope: "row" }, preset, players.length > 0 ? h("span", { class: "hint" }, ` (${players.join(", ")})`) : null),
      h("td", { "data-seats": `${taken}/${game.seats.length}` }, `${taken} of ${game.seats.length}`),
      h("td", {}, created ? h("time", { datetime: created.toISOString() }, created.toLocaleTimeString()) : ""),
      h(
        "td",
        {},
        h(
          "button",
          {
            type: "button",
            class: "join-public",
            "data-key": `join:${game.name}`,
            "aria-label": `Join the ${preset} game created ${created ? created.toLocaleTimeString() : ""} (${taken} of ${game.seats.length} seats taken)`,
            disabled: this.joining,
            onclick: () => void this.join(game.name),
          },
          "Join",
        ),
      ),
    );
  }

  private async join(game: string): Promise<void> {
    if (this.joining) return;
    this.joining = true;
    this.joinError = undefined;
    this.render();
    const id = this.requestIds.get(game) ?? requestId();
    this.requestIds.set(game, id);
    try {
      const response = await this.client.joinGame({ name: game, displayName: this.name.value.trim(), requestId: id });
      this.stop();
      this.joined(game, response.token);
    } catch (failure) {
      this.joinError = errorInWords(failure);
      this.joining = false;
      await this.refresh();
    }
  }
}
