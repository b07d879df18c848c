import { createConnectTransport } from "@connectrpc/connect-web";
import { asSeat, createScopaClient, scopaErrorInfo } from "@scopa/client";

// Connect (JSON over HTTP/1.1) to the server's HTTP port, as a browser would.
const client = createScopaClient(createConnectTransport({ baseUrl: "http://localhost:8080" }));

// A two-player game; the creator holds both seats, so it gets both tokens.
const game = await client.createGame({
  preset: "scopa",
  seats: [{ displayName: "Ann" }, { displayName: "Bob" }],
});
const ann = asSeat(game.credentials[0]!.token);

// Seat 0's view lists every legal move (card + exact capture); play the first one.
const { view } = await client.getState({ name: game.name }, ann);
const move = view!.legalMoves[0]!;
const played = await client.playCard(
  { name: game.name, card: move.card, capture: { cards: move.capture } },
  ann,
);
console.log(`${played.events[0]!.kind.case}; seat ${played.view!.turn} to play`);

// Seat 0 again, out of turn: the error's google.rpc.ErrorInfo gives the reason.
try {
  await client.playCard({ name: game.name, card: played.view!.hand[0]! }, ann);
} catch (error) {
  console.log(scopaErrorInfo(error).reason); // NOT_YOUR_TURN
}
