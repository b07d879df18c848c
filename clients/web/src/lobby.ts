// The lobby: the public games waiting for players (ListGames), each with a Join button that
// takes its lowest open seat (JoinGame without an invite code). Filtered by preset, a page at a
// time (AIP-158 page tokens), refreshed on demand and every few seconds while shown.
import type { GameView, ListRulesetsResponse, ScopaClient } from "@scopa/client";
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
  /** The page_token of each page up to the one shown ("" for the first): Previous pops one. */
  private pages: string[] = [""];
  /** The shown page's next_page_token; "" on the last page. */
  private nextToken = "";
  /** Bumped by every change of page or filter, so an older answer arriving late is dropped. */
  private generation = 0;
  private readonly name = h("input", { type: "text", id: "lobby-name", maxlength: 64, placeholder: "Your name", autocomplete: "nickname" });
  private readonly preset = h(
    "select",
    { id: "lobby-preset", onchange: () => void this.goTo([""]) },
    h("option", { value: "", selected: true }, "Every game"),
  );
  private readonly list = h("div", { class: "lobby-list" });
  private readonly previous = h("button", { type: "button", class: "secondary", id: "lobby-previous", disabled: true, onclick: () => void this.goTo(this.pages.slice(0, -1)) }, "Previous page");
  private readonly next = h("button", { type: "button", class: "secondary", id: "lobby-next", disabled: true, onclick: () => void this.goTo([...this.pages, this.nextToken]) }, "Next page");
  private readonly pageLine = h("span", { class: "hint", id: "lobby-page", "aria-live": "polite" });
  private readonly errorLine = h("p", { class: "error", role: "alert" });
  private readonly section = h(
    "section",
    { class: "lobby", "aria-labelledby": "lobby-title", "data-games": 0, "data-refreshes": 0, "data-page": 1 },
    h("h2", { id: "lobby-title" }, "Lobby: public games waiting for players"),
    h("div", { class: "lobby-controls" }, h("label", { class: "field" }, "Your name ", this.name), h("label", { class: "field" }, "Show ", this.preset)),
    this.list,
    h(
      "nav",
      { class: "lobby-pages", "aria-label": "Lobby pages" },
      this.previous,
      this.pageLine,
      this.next,
      h("button", { type: "button", class: "secondary", id: "lobby-refresh", onclick: () => void this.refresh() }, "Refresh the lobby"),
    ),
    this.errorLine,
  );
  /** The presets' display names by id (ListRulesets), once they arrive; until then rows show ids. */
  private readonly presetNames = new Map<string, string>();
  /** One request id per game: a retried Join (e.g. a double click) gets the same seat. */
  private readonly requestIds = new Map<string, string>();

  constructor(
    private readonly client: ScopaClient,
    private readonly root: HTMLElement,
    private readonly joined: Joined,
  ) {}

  /** Shows the lobby and keeps it fresh; the preset filter lists `rulesets` once they arrive. */
  start(rulesets: Promise<ListRulesetsResponse>): void {
    replace(this.root, this.section);
    this.render();
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    rulesets.then(
      (response) => {
        for (const r of response.rulesets) {
          this.preset.append(h("option", { value: r.id }, r.displayName || r.id));
          if (r.displayName) this.presetNames.set(r.id, r.displayName);
        }
        this.render();
      },
      () => undefined, // the new-game form above says why; the lobby still lists every game
    );
  }

  /** Stops refreshing (the page moves elsewhere). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Shows another page (or the first page of another filter): `pages` ends with its token. */
  private async goTo(pages: string[]): Promise<void> {
    this.pages = pages.length > 0 ? pages : [""];
    this.generation += 1;
    this.nextToken = "";
    await this.refresh();
  }

  /** Loads the shown page again; a page that has emptied (its games were joined) steps back. */
  private async refresh(): Promise<void> {
    const generation = this.generation;
    const pageToken = this.pages[this.pages.length - 1] ?? "";
    try {
      const response = await this.client.listGames({ pageSize: PAGE_SIZE, pageToken, preset: this.preset.value });
      if (generation !== this.generation) return;
      if (response.games.length === 0 && this.pages.length > 1) {
        await this.goTo(this.pages.slice(0, -1));
        return;
      }
      this.games = response.games;
      this.nextToken = response.nextPageToken;
      this.listError = undefined;
      this.refreshes += 1;
    } catch (failure) {
      if (generation !== this.generation) return;
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
    this.section.setAttribute("data-page", String(this.pages.length));
    this.previous.disabled = this.pages.length < 2;
    this.next.disabled = this.nextToken === "";
    this.pageLine.textContent = `Page ${this.pages.length}`;
    // A page button that has just been disabled (first or last page) hands the focus to the other.
    const other = document.activeElement === this.next ? this.previous : document.activeElement === this.previous ? this.next : undefined;
    if (other !== undefined && (document.activeElement as HTMLButtonElement).disabled && !other.disabled) other.focus();
    replace(
      this.list,
      rows.length === 0
        ? h("p", { class: "hint", id: "lobby-empty" }, this.preset.value === "" ? "No public game is waiting for players right now." : "No public game of this kind is waiting for players right now.")
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
    const preset = this.presetNames.get(game.preset) ?? game.preset;
    const players = game.seats.filter((seat) => !seat.open).map((seat) => seat.displayName).filter((n) => n !== "");
    return h(
      "tr",
      { "data-game": game.name, "data-preset": game.preset },
      h(
        "th",
        { scope: "row" },
        h("span", { class: "preset-name" }, preset),
        players.length > 0 ? h("span", { class: "hint" }, ` (${players.join(", ")})`) : null,
        preset === game.preset ? null : h("span", { class: "preset-id", title: "preset id" }, game.preset),
      ),
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
