// The web client's entry point: routes by the URL fragment, so the server only serves "/".
//   #/                         the new-game form
//   #/games/<id>               the game, as the seat whose token this tab holds (else a spectator)
//   #/games/<id>/join/<code>   an invite link: claim the seat, then the game
//   #/games/<id>/replay        a finished game's replay, from its record
// The invite code travels in the fragment, which browsers never send to a server; the seat
// token never appears in a URL (sessionStorage, then the Authorization header).
// Where the server offers sign-in (/web-config.json), the top bar has Sign in / Sign out, and a
// signed-in player's calls carry their access token instead of seat tokens (auth.ts); the
// provider sends the browser back to "/?code=...&state=...", which start() completes.
import "./style.css";
import type { CreateGameResponse, ScopaClient } from "@scopa/client";
import { loadToken, pageClient, requestId, saveToken } from "./api.js";
import { loadSignInConfig, SignIn } from "./auth.js";
import { h, replace } from "./dom.js";
import { GameScreen, type Invite } from "./game.js";
import { errorInWords } from "./messages.js";
import { LobbyPanel } from "./lobby.js";
import { ReplayScreen } from "./replay.js";
import { SetupScreen } from "./setup.js";

const INVITES_PREFIX = "scopa.invites.";

interface Route {
  readonly page: "setup" | "game" | "join" | "replay";
  readonly game?: string;
  readonly code?: string;
}

function route(): Route {
  const parts = window.location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (parts[0] === "games" && parts[1]) {
    const game = `games/${parts[1]}`;
    if (parts[2] === "join" && parts[3]) return { page: "join", game, code: parts[3] };
    if (parts[2] === "replay") return { page: "replay", game };
    return { page: "game", game };
  }
  return { page: "setup" };
}

function gameHash(game: string): string {
  return `#/${game.split("/").map(encodeURIComponent).join("/")}`;
}

function inviteLink(game: string, code: string): string {
  return `${window.location.origin}/${gameHash(game)}/join/${encodeURIComponent(code)}`;
}

class App {
  private readonly client: ScopaClient;
  private game: GameScreen | undefined;
  private replay: ReplayScreen | undefined;
  private lobby: LobbyPanel | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly signIn: SignIn | undefined,
  ) {
    this.client = pageClient(signIn ? () => signIn.bearer() : undefined);
  }

  /** The signed-in player's token was renewed: the game's session says hello again with it. */
  renewed(): void {
    this.game?.renewed();
  }

  show(): void {
    this.game?.stop();
    this.game = undefined;
    this.replay?.stop();
    this.replay = undefined;
    this.lobby?.stop();
    this.lobby = undefined;
    const where = route();
    if (where.page === "join" && where.game && where.code) this.join(where.game, where.code);
    else if (where.page === "game" && where.game) this.play(where.game);
    else if (where.page === "replay" && where.game) this.watchReplay(where.game);
    else this.home();
  }

  /** The new-game form and, below it, the lobby of public games. */
  private home(): void {
    const setup = h("div", { class: "home-setup" });
    const lobby = h("div", { class: "home-lobby" });
    replace(this.root, setup, lobby);
    const rulesets = this.client.listRulesets({}); // the form's games and the lobby's filter
    void new SetupScreen(this.client, setup, (response, seat) => this.created(response, seat)).start(rulesets);
    this.lobby = new LobbyPanel(this.client, lobby, (game, token) => {
      saveToken(game, token);
      window.location.hash = gameHash(game);
    });
    this.lobby.start(rulesets);
  }

  private created(response: CreateGameResponse, seat: number): void {
    const token = response.credentials.find((c) => c.seat === seat)?.token;
    if (token) saveToken(response.name, token);
    const invites: Invite[] = response.invites.map((i) => ({ seat: i.seat, link: inviteLink(response.name, i.inviteCode) }));
    window.sessionStorage.setItem(INVITES_PREFIX + response.name, JSON.stringify(invites));
    window.location.hash = gameHash(response.name);
  }

  private play(game: string): void {
    const stored = window.sessionStorage.getItem(INVITES_PREFIX + game);
    const invites = stored ? (JSON.parse(stored) as Invite[]) : [];
    const token = loadToken(game);
    const onRematch = (rematch: string): void => {
      if (token) saveToken(rematch, token); // the seat's token acts for the rematch's seat too
      window.location.hash = gameHash(rematch);
    };
    const bearer = this.signIn ? () => this.signIn?.bearer() ?? Promise.resolve(undefined) : undefined;
    this.game = new GameScreen({ client: this.client, name: game, token, bearer, invites, root: this.root, replayLink: `${gameHash(game)}/replay`, onRematch });
    this.game.start();
  }

  private watchReplay(game: string): void {
    this.replay = new ReplayScreen({ client: this.client, name: game, token: loadToken(game), root: this.root, gameLink: gameHash(game) });
    this.replay.start();
  }

  private join(game: string, code: string): void {
    if (loadToken(game)) {
      // This tab already holds a seat of the game (e.g. the link was reloaded after joining).
      window.history.replaceState(null, "", gameHash(game));
      this.play(game);
      return;
    }
    const name = h("input", { type: "text", id: "join-name", maxlength: 64, placeholder: "Your name", autocomplete: "nickname", value: this.signIn?.name });
    const error = h("p", { class: "error", role: "alert" });
    const button = h("button", { type: "submit", id: "join" }, "Join the game");
    const id = requestId(); // one JoinGame: a retry (e.g. a double click) gets the same seat
    const form = h(
      "form",
      { class: "join" },
      h("h1", {}, "You are invited to a game"),
      h("label", { class: "field" }, "Your name ", name),
      button,
      error,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      button.disabled = true;
      this.client
        .joinGame({ name: game, inviteCode: code, displayName: name.value.trim(), requestId: id })
        .then((joined) => {
          saveToken(game, joined.token);
          window.history.replaceState(null, "", gameHash(game)); // the invite leaves the history
          this.show();
        })
        .catch((failure: unknown) => {
          const words = errorInWords(failure);
          error.textContent = words.text;
          error.dataset["reason"] = words.reason;
          button.disabled = false;
        });
    });
    replace(this.root, form);
    name.focus();
  }
}

/** The top bar's account part: Sign in, or who is signed in and Sign out. */
function showAccount(bar: HTMLElement, signIn: SignIn): void {
  const name = signIn.name;
  bar.setAttribute("data-signed-in", String(name !== undefined));
  bar.setAttribute("data-renewals", String(signIn.renewals));
  const notice = signIn.notice ? h("span", { class: "notice", id: "sign-in-notice", role: "status" }, signIn.notice) : null;
  if (name === undefined) {
    replace(bar, notice, h("button", { type: "button", id: "sign-in", class: "secondary", onclick: () => void signIn.signIn() }, "Sign in"));
  } else {
    replace(
      bar,
      h("span", { id: "signed-in-as" }, "Signed in as ", h("strong", {}, name)),
      h("button", { type: "button", id: "sign-out", class: "secondary", onclick: () => void signIn.signOut() }, "Sign out"),
    );
  }
}

async function main(root: HTMLElement): Promise<void> {
  const config = await loadSignInConfig();
  const signIn = config ? new SignIn(config) : undefined;
  await signIn?.start();
  const app = new App(root, signIn);
  const bar = document.getElementById("account");
  if (signIn && bar) {
    showAccount(bar, signIn);
    signIn.onChange((change) => {
      showAccount(bar, signIn);
      if (change === "token") app.renewed();
      else if (change === "state") app.show(); // signed in or out: every screen again, as the new caller
    });
  }
  window.addEventListener("hashchange", () => app.show());
  app.show();
}

const root = document.getElementById("app");
if (root) void main(root);
