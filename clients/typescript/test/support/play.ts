// Plays complete games through a ScopaClient, as a third-party program would.
import { randomUUID } from "node:crypto";
import {
  asSeat,
  GameStatus,
  type GameView,
  type ScopaClient,
  type WatchGameResponse,
} from "../../src/index.js";

/** An upper bound on plays in one game, so a broken server cannot loop a test forever. */
const MAX_PLAYS = 2_000;

/** A game created with every seat held by the creator. */
export interface CreatedGame {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly view: GameView;
}

/** Creates a `preset` game for `players` seats, all held by the caller. */
export async function createGame(client: ScopaClient, preset: string, players: number): Promise<CreatedGame> {
  const seats = Array.from({ length: players }, (_, seat) => ({ displayName: `seat ${seat}` }));
  const created = await client.createGame({ preset, seats, requestId: randomUUID() });
  const tokens: string[] = [];
  for (const credential of created.credentials) tokens[credential.seat] = credential.token;
  if (created.view === undefined) throw new Error("CreateGame returned no view");
  return { name: created.name, tokens, view: created.view };
}

/** Token of the seat to play in `view`. */
export function tokenToPlay(game: CreatedGame, view: GameView): string {
  const turn = view.turn;
  const token = turn === undefined ? undefined : game.tokens[turn];
  if (token === undefined) throw new Error(`no token for the seat to play (${String(turn)})`);
  return token;
}

/** Plays the first legal move of whoever is to play until the game ends; returns the plays made and the final view. */
export async function playToTheEnd(client: ScopaClient, game: CreatedGame): Promise<{ plays: number; final: GameView }> {
  let view = game.view;
  let plays = 0;
  while (view.status !== GameStatus.FINISHED) {
    if (plays >= MAX_PLAYS) throw new Error(`game not finished after ${MAX_PLAYS} plays`);
    const seat = asSeat(tokenToPlay(game, view));
    const mine = (await client.getState({ name: game.name }, seat)).view;
    const move = mine?.legalMoves[0];
    if (move === undefined) throw new Error(`no legal move for seat ${String(view.turn)}`);
    const played = await client.playCard(
      { name: game.name, card: move.card, capture: { cards: move.capture }, requestId: randomUUID() },
      seat,
    );
    if (played.view === undefined) throw new Error("PlayCard returned no view");
    view = played.view;
    plays += 1;
  }
  return { plays, final: view };
}

/** Collects a spectator's WatchGame stream from `fromVersion` until it ends. */
export async function watchToTheEnd(
  client: ScopaClient,
  name: string,
  fromVersion: number,
  signal: AbortSignal,
): Promise<WatchGameResponse[]> {
  const messages: WatchGameResponse[] = [];
  for await (const message of client.watchGame({ name, fromVersion }, { signal })) {
    messages.push(message);
  }
  return messages;
}
