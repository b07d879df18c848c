// End to end: the replay of a finished game (#/games/<id>/replay) in headless Chromium, on a real
// scopa server (SCOPA_WEB_UI on, its archive a SQLite file) and a real redis-server. The game is
// played over REST against a bot seat; the shown cards are checked against its record's JSON.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser, Page } from "playwright-core";
import {
  startRedis,
  startScopaServer,
  stop,
  type Running,
  type ScopaServer,
} from "../../typescript/test/support/processes.js";
import { launchBrowser, screenshot, whyNoBrowser } from "./support/browser.js";
import { STEP_MS } from "./support/ui.js";

const TEST_TIMEOUT = { timeout: 600_000 };
const DESKTOP = { width: 1100, height: 1000 };
/** A bound on Ann's plays, so a broken server cannot loop forever. */
const MAX_PLAYS = 200;

type RecordEvent = { t: string } & Record<string, unknown>;
interface RecordJson {
  game: string;
  cards: Record<string, string>;
  versions: { version: number; events: RecordEvent[] }[];
}

/** One hand's start in the record: its table and each seat's first cards, as card codes. */
interface Deal {
  table: string[];
  hands: string[][];
}

const skip = whyNoBrowser();

describe("the replay of a finished game in headless Chromium", { skip }, () => {
  let redis: Running | undefined;
  let server: ScopaServer | undefined;
  let browser: Browser | undefined;

  before(async () => {
    redis = await startRedis();
    server = await startScopaServer(
      redis.port,
      async (s) => {
        try {
          return (await fetch(`${s.httpUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      },
      { SCOPA_WEB_UI: "on", SCOPA_RATE_LIMIT_CREATE_GAME: "off" },
    );
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (server) await stop(server);
    if (redis) await stop(redis);
  });

  async function rest(path: string, token: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(`${server?.httpUrl}/v1/${path}`, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** Ann (seat 0) against a greedy bot, over REST: two hands at most (hand_limit 2, target 21). */
  async function createBotGame(): Promise<{ name: string; token: string }> {
    const response = await fetch(`${server?.httpUrl}/v1/games`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        preset: "scopa",
        options: { target_score: { intValue: 21 }, hand_limit: { intValue: 2 } },
        seats: [{ displayName: "Ann" }, { bot: "greedy" }],
      }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const created = (await response.json()) as { name: string; credentials: { seat?: number; token: string }[] };
    const token = created.credentials.find((c) => (c.seat ?? 0) === 0)?.token;
    assert.ok(token);
    return { name: created.name, token };
  }

  /** Ann plays her first legal move whenever she has one, until the game is over. */
  async function playToTheEnd(name: string, token: string): Promise<void> {
    for (let plays = 0; ; ) {
      assert.ok(plays < MAX_PLAYS, "the game ends");
      const response = await rest(name, token);
      assert.equal(response.status, 200);
      const view = ((await response.json()) as { view: { status: string; legalMoves?: { card: unknown; capture?: unknown[] }[] } }).view;
      if (view.status === "GAME_STATUS_FINISHED") return;
      const move = view.legalMoves?.[0];
      if (move === undefined) {
        await sleep(50); // the bot's turn
        continue;
      }
      const played = await rest(`${name}:playCard`, token, { card: move.card, capture: { cards: move.capture ?? [] }, requestId: crypto.randomUUID() });
      assert.equal(played.status, 200, await played.clone().text());
      plays += 1;
    }
  }

  /** The record over REST (GetGameRecord), as a seat reads it. */
  async function recordOf(name: string, token: string): Promise<RecordJson> {
    const response = await rest(`${name}/record`, token);
    assert.equal(response.status, 200, await response.clone().text());
    return JSON.parse(((await response.json()) as { record: { recordJson: string } }).record.recordJson) as RecordJson;
  }

  /** Each hand's deal in the record (the table and each seat's first cards), by hand number. */
  function deals(record: RecordJson): Map<number, Deal> {
    const found = new Map<number, Deal>();
    let current: Deal | undefined;
    for (const event of record.versions.flatMap((v) => v.events)) {
      if (event.t === "hand_started") {
        current = { table: codes(record, event["table"]), hands: [] };
        found.set(Number(event["hand_number"]), current);
      } else if (event.t === "cards_dealt" && current) {
        current.hands[Number(event["seat"])] ??= codes(record, event["cards"]);
      } else if (event.t !== "seat_joined") {
        current = undefined; // later deals (hands run out) are not the hand's start
      }
    }
    return found;
  }

  function codes(record: RecordJson, cards: unknown): string[] {
    return (cards as number[]).map((n) => record.cards[String(n)] ?? "?");
  }

  /** The codes of the cards shown in seat `seat`'s hand and on the table, in order. */
  async function shown(page: Page): Promise<{ hands: string[][]; table: string[] }> {
    const hands = await page.locator(".replay-hand").evaluateAll((sections) =>
      sections.map((s) => Array.from(s.querySelectorAll("[data-card]"), (c) => c.getAttribute("data-card") ?? "")),
    );
    const table = await page.locator(".table > ul.cards > li.card").evaluateAll((cards) => cards.map((c) => c.getAttribute("data-card") ?? ""));
    return { hands, table };
  }

  async function stepShown(page: Page): Promise<number> {
    return Number(await page.locator(".replay").getAttribute("data-step"));
  }

  it("a seat replays a finished game from its screen: steps forward and back, jumps to a hand; every hand and the table as the record says", TEST_TIMEOUT, async () => {
    assert.ok(browser && server);
    const { name, token } = await createBotGame();
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: server.httpUrl });
    context.setDefaultTimeout(STEP_MS);
    try {
      const page = await context.newPage();
      await page.goto("/");
      await page.evaluate(([game, value]) => window.sessionStorage.setItem(`scopa.token.${game}`, value ?? ""), [name, token]);

      // While the game is played its record does not exist yet: the replay says so in words.
      await page.goto(`/#/${name}/replay`);
      const early = page.locator(".replay[data-state='error'] .error");
      await early.waitFor();
      assert.equal(await early.getAttribute("data-reason"), "GAME_NOT_FINISHED");
      assert.match((await early.textContent()) ?? "", /still being played/);

      await playToTheEnd(name, token);
      const record = await recordOf(name, token);
      assert.equal(record.game, name);
      const hands = deals(record);
      const first = hands.get(1);
      const second = hands.get(2);
      assert.ok(first && second, "the record has two hands");
      const played = record.versions.flatMap((v) => v.events).find((e) => e.t === "card_played");
      assert.ok(played);

      // The finished game's screen links to its replay.
      await page.goto(`/#/${name}`);
      await page.locator(".game[data-status='FINISHED']").waitFor();
      await page.locator("a.replay-link").click();
      await page.locator(".replay[data-state='ready']").waitFor();
      assert.match(new URL(page.url()).hash, /\/replay$/);
      assert.deepEqual(await page.locator("#replay-hand option").allTextContents(), ["Hand 1", "Hand 2"]);

      // The first step: hand 1 dealt, both hands shown (the bot's too) as the record deals them.
      assert.equal(await stepShown(page), 0);
      assert.deepEqual(await shown(page), { hands: first.hands, table: first.table });
      assert.match((await page.locator(".events li").first().textContent()) ?? "", /^Hand 1 begins; .+ deals\.$/);
      assert.ok(await page.locator("[data-key='replay-prev']").isDisabled(), "no step before the first");

      // Next, with the keyboard: the first play, its card gone from its seat's hand.
      await page.locator("[data-key='replay-next']").focus();
      await page.keyboard.press("Enter");
      await page.locator(".replay[data-step='1']").waitFor();
      const seat = Number(played["seat"] ?? 0);
      const card = codes(record, [played["card"]])[0] ?? "";
      const captured = codes(record, played["captured"]);
      const after = await shown(page);
      assert.deepEqual(after.hands[seat], first.hands[seat]?.filter((c) => c !== card));
      assert.deepEqual(after.hands[1 - seat], first.hands[1 - seat]);
      const table = first.table.filter((c) => !captured.includes(c));
      assert.deepEqual(after.table, played["taken"] ? table : [...table, card]);
      assert.match((await page.locator(".events li").first().textContent()) ?? "", /(plays|lays) \S+ di (coppe|denari|bastoni|spade)/);
      assert.equal(await page.locator(`.replay-hand[data-seat='${seat}'].to-play`).count(), 1, "the seat that played is marked");

      // Back, with the arrow key: the deal again.
      await page.keyboard.press("ArrowLeft");
      await page.locator(".replay[data-step='0']").waitFor();
      assert.deepEqual(await shown(page), { hands: first.hands, table: first.table });

      // Jump to hand 2: its deal.
      await page.locator("#replay-hand").selectOption({ label: "Hand 2" });
      await page.locator(".replay[data-hand='2']").waitFor();
      assert.deepEqual(await shown(page), { hands: second.hands, table: second.table });
      // (after the words of any void deal before it: a redeal is its hand's, not the last one's)
      const begins = await page.locator(".events li").allTextContents();
      assert.match(begins.filter((line) => !line.startsWith("The deal is void"))[0] ?? "", /^Hand 2 begins/);
      await screenshot(page, "replay");

      // The step before is hand 1's scoring, line by line.
      const at = await stepShown(page);
      await page.locator("[data-key='replay-prev']").click();
      await page.locator(`.replay[data-step='${at - 1}']`).waitFor();
      assert.equal(await page.locator(".replay").getAttribute("data-hand"), "1");
      const lines = await page.locator(".replay-scoring li").allTextContents();
      assert.ok(lines.length > 0, "the hand's scoring is shown");
      for (const line of lines) assert.match(line, /^[A-Z][a-z ]+: .*[+-]?\d/);

      // A spectator (no seat token) may not read a private game's record: the replay says why.
      const stranger = await context.browser()?.newContext({ baseURL: server.httpUrl });
      assert.ok(stranger);
      try {
        const other = await stranger.newPage();
        await other.goto(`/#/${name}/replay`);
        const denied = other.locator(".replay[data-state='error'] .error");
        await denied.waitFor({ timeout: STEP_MS });
        assert.equal(await denied.getAttribute("data-reason"), "PERMISSION_DENIED");
        assert.match((await denied.textContent()) ?? "", /record is for its players/);
      } finally {
        await stranger.close();
      }
    } finally {
      await context.close();
    }
  });
});
