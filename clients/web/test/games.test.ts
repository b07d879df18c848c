// End to end: two people in two browser contexts create, join and play complete games through
// the web client alone, served by a real scopa server (SCOPA_WEB_UI on) on a real redis-server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  startRedis,
  startScopaServer,
  stop,
  type Running,
  type ScopaServer,
} from "../../typescript/test/support/processes.js";
import { launchBrowser, screenshot, whyNoBrowser } from "./support/browser.js";
import {
  createTwoPlayerGame,
  handOf,
  inviteLink,
  isMyTurn,
  join,
  scoresShown,
  statusOf,
  STEP_MS,
  versionOf,
  waitForVersion,
} from "./support/ui.js";

/** The server ends a watch stream idle this long, so a pause makes every client resume. */
const WATCH_IDLE_S = 2;
/** A bound on the plays of one game, so a broken client cannot loop forever. */
const MAX_PLAYS = 600;
const TEST_TIMEOUT = { timeout: 600_000 };
const DESKTOP = { width: 1100, height: 1000 };
const PHONE = { width: 390, height: 844 };

/** What to do along the way, at the play with that number. */
interface Detours {
  readonly illegalAt?: number;
  readonly reloadAt?: number;
  readonly idleAt?: number;
  readonly offlineAt?: number;
  readonly screenshots?: boolean;
  /**
   * Scopa della fattoria: build a farm and raise one the first time the mover may (a raise
   * first), and check that each is shown and that the farm's owner then takes it.
   */
  readonly farms?: boolean;
  /** The first deal (card codes, as createStackedGame): the game is created over REST with it. */
  readonly deal?: readonly string[];
  /** The pages have no WebSocket: the screen falls back to WatchGame and calls. */
  readonly stream?: boolean;
}

/** The server's game, as a spectator sees it over REST (GetState). */
interface ServerView {
  readonly status: string;
  readonly sides: { side: number; score: number; sweeps?: number }[];
  readonly winners: number[];
  readonly finishReason?: string;
  readonly seats: { seat: number; displayName?: string; resigned?: boolean; timeouts?: number }[];
  readonly timeoutBot?: string;
  readonly rematchGame?: string;
}

/** The games one page of the lobby shows (lobby.ts PAGE_SIZE). */
const LOBBY_PAGE = 20;

/** The suits by the letter of a card code ("2C": the 2 of coppe, as the page's data-card). */
const SUITS: Record<string, string> = { C: "SUIT_COPPE", D: "SUIT_DENARI", B: "SUIT_BASTONI", S: "SUIT_SPADE" };

/**
 * A 40-card deck for CreateGame's stacked_decks: `top` first (card codes, dealt one at a time
 * from seat 0, then the table), then every other card in order.
 */
function stackedDeck(top: readonly string[]): { cards: { suit: string; rank: number }[] } {
  const all = Object.keys(SUITS).flatMap((letter) => Array.from({ length: 10 }, (_, i) => `${i + 1}${letter}`));
  const order = [...top, ...all.filter((code) => !top.includes(code))];
  assert.equal(new Set(order).size, 40, "a stacked deck holds each card once");
  return { cards: order.map((code) => ({ suit: SUITS[code.slice(-1)] ?? "", rank: Number(code.slice(0, -1)) })) };
}

const skip = whyNoBrowser();

describe("the web client in headless Chromium", { skip }, () => {
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
      { SCOPA_WEB_UI: "on", SCOPA_WATCH_IDLE_S: String(WATCH_IDLE_S), SCOPA_RATE_LIMIT_CREATE_GAME: "off", SCOPA_ALLOW_STACKED_DECKS: "on" },
    );
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    if (server) await stop(server);
    if (redis) await stop(redis);
  });

  async function getState(name: string): Promise<ServerView> {
    const response = await fetch(`${server?.httpUrl}/v1/${name}`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { view: ServerView }).view;
  }

  /** Creates a public 2-player game over REST (CreateGame) with one open seat; returns its name. */
  async function createPublicGame(preset: string, creator: string): Promise<string> {
    const response = await fetch(`${server?.httpUrl}/v1/games`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ preset, seats: [{ displayName: creator }, { open: true }], public: true }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { name: string }).name;
  }

  /**
   * Creates a 2-player game over REST whose first deal is `top` (stacked_decks) and whose two
   * seats are both open; returns the invite links of seat 0 and seat 1, for the pages to join.
   */
  async function createStackedGame(preset: string, top: readonly string[], options: Record<string, string> = {}): Promise<string[]> {
    const values = Object.fromEntries(Object.entries(options).map(([key, value]) => [key, { intValue: Number(value) }]));
    const response = await fetch(`${server?.httpUrl}/v1/games`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ preset, options: values, seats: [{ open: true }, { open: true }], stackedDecks: [stackedDeck(top)] }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const created = (await response.json()) as { name: string; invites: { seat?: number; inviteCode: string }[] };
    return [0, 1].map((seat) => {
      const invite = created.invites.find((i) => (i.seat ?? 0) === seat);
      assert.ok(invite, `an invite for seat ${seat}`);
      return `${server?.httpUrl}/#/${created.name}/join/${encodeURIComponent(invite.inviteCode)}`;
    });
  }

  /** Holds back the answer to the page's first PlayCard call for `ms`; the result tells when
   * that hold ends (0 until the play is made). */
  async function holdFirstPlay(page: Page, ms: number): Promise<() => number> {
    let heldUntil = 0;
    await page.route("**/scopa.v1.GameService/PlayCard", async (route) => {
      const response = await route.fetch();
      if (heldUntil === 0) {
        heldUntil = Date.now() + ms;
        await sleep(ms);
      }
      await route.fulfill({ response });
    });
    return () => heldUntil;
  }

  /** Ann (seat 0, desktop) and Bob (seat 1, phone) join a game created by createStackedGame. */
  async function seatedPeople(links: readonly string[]): Promise<{ ann: Page; bob: Page; contexts: BrowserContext[]; name: string }> {
    const people = await twoPeople();
    await join(people.ann, links[0] ?? "", "Ann");
    await join(people.bob, links[1] ?? "", "Bob");
    for (const page of [people.ann, people.bob]) await page.locator(".game[data-status='ACTIVE']").waitFor();
    const name = decodeURIComponent(new URL(people.ann.url()).hash.replace(/^#\//, ""));
    return { ...people, name };
  }

  /** Waits until both pages show `version` (the mover's response and the other's stream). */
  async function bothAt(pages: readonly Page[], version: number): Promise<void> {
    for (const page of pages) await waitForVersion(page, version);
  }

  /** The card codes the page shows on the table (loose cards, not farms), in order. */
  function looseCards(page: Page): Promise<string[]> {
    return page.locator(".table > ul.cards > li.card").evaluateAll((cards) => cards.map((c) => c.getAttribute("data-card") ?? ""));
  }

  /** Waits for an announcement in the page's "What happened". */
  async function announced(page: Page, text: string): Promise<void> {
    await page.locator(".events li", { hasText: text }).waitFor();
  }

  /** A page of one person at `/`, on a desktop; with `noWebSocket` its browser has none (the
   * page plays by calls and follows by WatchGame). */
  async function onePerson(noWebSocket = false): Promise<{ page: Page; context: BrowserContext }> {
    assert.ok(browser && server);
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: server.httpUrl });
    context.setDefaultTimeout(STEP_MS);
    if (noWebSocket) await context.addInitScript(() => Reflect.deleteProperty(window, "WebSocket"));
    const page = await context.newPage();
    await page.goto("/");
    return { page, context };
  }

  /** Plays the first card of the hand that has a legal play, with the keyboard; of several
   * captures, the first (which has the focus) or, with `tab`, the next one. */
  async function playByKeyboard(page: Page, tab = false): Promise<void> {
    const card = (await handOf(page)).find((c) => c.choices > 0);
    assert.ok(card);
    await page.locator(`.hand button[data-card='${card.code}']`).focus();
    await page.keyboard.press("Enter");
    if (card.choices > 1) {
      // The first option has the focus (its cards highlighted); Tab reaches the next one.
      await page.locator(".choice [data-choice='0']:focus").waitFor();
      if (tab) await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
    }
  }

  /**
   * Two people: Ann creates the game on a desktop, Bob joins from the link on a phone. With
   * `noWebSocket` their browsers have none (the pages fall back to WatchGame and calls).
   */
  async function twoPeople(noWebSocket = false): Promise<{ ann: Page; bob: Page; contexts: BrowserContext[] }> {
    assert.ok(browser && server);
    const annContext = await browser.newContext({ viewport: DESKTOP, baseURL: server.httpUrl });
    const bobContext = await browser.newContext({ viewport: PHONE, baseURL: server.httpUrl, isMobile: true, hasTouch: true });
    for (const context of [annContext, bobContext]) {
      context.setDefaultTimeout(STEP_MS);
      if (noWebSocket) await context.addInitScript(() => Reflect.deleteProperty(window, "WebSocket"));
    }
    return { ann: await annContext.newPage(), bob: await bobContext.newPage(), contexts: [annContext, bobContext] };
  }

  /** Creates, joins and plays a game to its end through both pages; returns the game's name. */
  async function playGame(preset: string, options: Record<string, string>, detours: Detours): Promise<string> {
    const { ann, bob, contexts } = await twoPeople(detours.stream === true);
    try {
      if (detours.deal) {
        // Over REST with its first deal stacked (integer options only), both seats joined by link.
        const links = await createStackedGame(preset, detours.deal, options);
        await join(ann, links[0] ?? "", "Ann");
        await join(bob, links[1] ?? "", "Bob");
        for (const page of [ann, bob]) await page.locator(".game[data-status='ACTIVE']").waitFor();
      } else {
        await ann.goto("/");
        if (detours.screenshots) await screenshot(ann, "new-game");
        await createTwoPlayerGame(ann, preset, "Ann", options);
        await ann.locator("#create").click();
        const link = await inviteLink(ann, 1);
        await join(bob, link, "Bob");
        await ann.locator(".banner:not(:has-text('Waiting for players'))").waitFor();
      }
      const name = decodeURIComponent(new URL(ann.url()).hash.replace(/^#\//, ""));
      assert.match(name, /^games\/[^/]+$/);
      const transport = detours.stream === true ? "stream" : "session";
      for (const page of [ann, bob]) await page.locator(`.game[data-transport='${transport}']`).waitFor();
      if (detours.screenshots) await screenshot(ann, "start");

      let plays = 0;
      let choices = 0;
      const farms = { built: 0, raised: 0, taken: 0 };
      for (;;) {
        const version = Math.max(await versionOf(ann), await versionOf(bob));
        await waitForVersion(ann, version);
        await waitForVersion(bob, version);
        if ((await statusOf(ann)) === "FINISHED") break;
        assert.ok(plays < MAX_PLAYS, `the game did not end in ${MAX_PLAYS} plays`);
        const annToPlay = await isMyTurn(ann);
        const [mover, waiter] = annToPlay ? [ann, bob] : [bob, ann];
        assert.ok(await isMyTurn(mover), "one of the two seats is to play");
        assert.equal(await isMyTurn(waiter), false);

        if (plays === detours.illegalAt) await playOutOfTurn(waiter, version);
        if (plays === detours.reloadAt) await reloadResumes(waiter, version);
        if (plays === detours.idleAt) await idleResumes([ann, bob]);

        const names = annToPlay ? ["Ann", "Bob"] : ["Bob", "Ann"];
        const raise = mover.locator(".builds button[data-build='raise']");
        const build = mover.locator(".builds button[data-build='build']");
        const farm = detours.farms !== true
          ? undefined
          : farms.raised === 0 && (await raise.count()) > 0
            ? { button: raise.first(), said: `${names[0]} raises the farm to`, cards: 3 }
            : farms.built === 0 && (await build.count()) > 0
              ? { button: build.first(), said: `${names[0]} builds a farm of`, cards: 2 }
              : undefined;
        if (farm) {
          await farm.button.click();
          await waitForVersion(mover, version + 1);
          await waitForVersion(waiter, version + 1);
          for (const page of [mover, waiter]) {
            await announced(page, farm.said);
            const shown = page.locator(".table li.farm");
            assert.equal(await shown.count(), 1, "both people see the farm on the table");
            assert.match((await shown.getAttribute("aria-label")) ?? "", new RegExp(`^Farm of \\d+, ${names[0]}'s`));
            assert.equal(await shown.locator("li.card").count(), farm.cards);
          }
          if (farm.cards === 2) farms.built += 1;
          else farms.raised += 1;
          plays += 1;
          continue;
        }
        // The mover's own farm: its only plays take it (farm_owner_takes), shown on both tables.
        const owned = mover.locator(`.table li.farm[data-owner='${annToPlay ? 0 : 1}']`);
        const owns = detours.farms === true && (await owned.count()) > 0;
        const offline = plays === detours.offlineAt ? await goOffline(waiter) : undefined;
        const hand = await handOf(mover);
        const several = hand.find((c) => c.choices > 1);
        const card = several ?? hand.find((c) => c.choices === 1);
        assert.ok(card, `a playable card in ${JSON.stringify(hand)}`);
        await mover.locator(`.hand button[data-card='${card.code}']`).click();
        if (several) {
          await chooseCapture(mover, several.choices, detours.screenshots === true && choices === 0);
          choices += 1;
        }
        await waitForVersion(mover, version + 1);
        if (owns) {
          await waitForVersion(waiter, version + 1);
          for (const page of [mover, waiter]) await announced(page, `${names[0]} takes the farm of`);
          farms.taken += 1;
        }
        if (offline) await offline();
        if (plays === 12 && detours.screenshots) await screenshot(bob, "phone");
        plays += 1;
      }

      const state = await getState(name);
      assert.equal(state.status, "GAME_STATUS_FINISHED");
      const expected = new Map(state.sides.map((side) => [side.side, side.score]));
      for (const page of [ann, bob]) {
        assert.deepEqual(await scoresShown(page), expected, "the scores shown are the server's");
        await page.locator(".sheets h2", { hasText: "Final score sheet" }).waitFor();
        const banner = (await page.locator(".banner").textContent()) ?? "";
        assert.match(banner, /won/);
      }
      const winnerNames = state.winners.map((side) => (side === 0 ? "Ann" : "Bob"));
      assert.match((await ann.locator(".banner").textContent()) ?? "", new RegExp(winnerNames.join("|")));
      if (detours.screenshots) await screenshot(ann, "final");
      if (detours.farms === true) assert.deepEqual(farms, { built: 1, raised: 1, taken: 1 }, "a farm was built, raised and taken");
      console.log(`# ${preset}: ${plays} plays, ${choices} capture choices, scores ${JSON.stringify([...expected])}`);
      return name;
    } catch (failure) {
      // What each person saw when it failed, beside the other artifacts.
      await screenshot(ann, `failed-${preset}-ann`).catch(() => undefined);
      await screenshot(bob, `failed-${preset}-bob`).catch(() => undefined);
      throw failure;
    } finally {
      for (const context of contexts) await context.close();
    }
  }

  /** Clicks a card on the page whose turn it is not: the server's reason is shown, nothing changes. */
  async function playOutOfTurn(page: Page, version: number): Promise<void> {
    const [first] = await handOf(page);
    assert.ok(first);
    await page.locator(`.hand button[data-card='${first.code}']`).click();
    const error = page.locator(".error[data-reason='NOT_YOUR_TURN']");
    await error.waitFor();
    assert.match((await error.textContent()) ?? "", /not your turn/i);
    assert.equal(await versionOf(page), version);
  }

  /** Reloads the page: the same seat, hand and version come back (token in sessionStorage). */
  async function reloadResumes(page: Page, version: number): Promise<void> {
    const before = await handOf(page);
    await page.reload();
    await waitForVersion(page, version);
    assert.deepEqual(await handOf(page), before);
  }

  /**
   * Waits past the server's watch idle limit: pages on WatchGame reconnect from their last
   * version; pages on a session stay connected (the server watches again on its side).
   */
  async function idleResumes(pages: Page[]): Promise<void> {
    await sleep((WATCH_IDLE_S + 1.5) * 1000);
    for (const page of pages) {
      if ((await page.locator(".game").getAttribute("data-transport")) === "session") {
        assert.equal(await page.locator(".game").getAttribute("data-connection"), "live");
        assert.equal(await page.locator(".game").getAttribute("data-reconnects"), "0");
        continue;
      }
      await page.waitForFunction(() => Number(document.querySelector(".game")?.getAttribute("data-reconnects")) > 0, null, { timeout: STEP_MS });
    }
  }

  /**
   * Cuts the page's network: its watch stream drops and it says it is reconnecting. The
   * returned function restores the network, and the page must then catch up on the play it
   * missed (watching again from the last version it had).
   */
  async function goOffline(page: Page): Promise<() => Promise<void>> {
    const before = await versionOf(page);
    await page.context().setOffline(true);
    await page.locator(".game[data-connection='reconnecting']").waitFor();
    return async () => {
      assert.equal(await versionOf(page), before, "no update arrives while offline");
      await page.context().setOffline(false);
      await page.locator(".game[data-connection='live']").waitFor();
    };
  }

  /** The capture choice: each option highlights its cards on the table; pick one. */
  async function chooseCapture(page: Page, count: number, shoot: boolean): Promise<void> {
    const options = page.locator(".choice [data-choice]");
    await options.first().waitFor();
    assert.equal(await options.count(), count);
    const pick = count - 1;
    await options.nth(pick).hover();
    await options.nth(pick).focus();
    assert.ok((await page.locator(".table li.card.highlight").count()) > 0, "the capture is highlighted on the table");
    if (shoot) await screenshot(page, "capture-choice");
    await options.nth(pick).click();
  }

  /**
   * The bot has just answered Ann's play: both plays are told in "What happened" (the card, and
   * what it took or that it was laid), and the table shows the bot's as the last play.
   */
  async function botReplyTold(page: Page, name: string): Promise<void> {
    const bot = ((await getState(name)).seats[1]?.displayName || "Seat 2").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const told = await page.locator(".events li").allTextContents();
    const play = (who: string) => (text: string) => new RegExp(`^${who} (plays \\S+ di \\S+ and takes |lays \\S+ di \\S+ on the table)`).test(text);
    assert.ok(told.some(play("Ann")), `Ann's play is told: ${told.join(" | ")}`);
    assert.ok(told.some(play(bot)), `the bot's reply is told: ${told.join(" | ")}`);
    const last = page.locator(".table .last-play");
    assert.equal(await last.getAttribute("data-seat"), "1", "the last play marked on the table is the bot's");
    assert.match((await last.getAttribute("data-card")) ?? "", /^\d+[CDBS]$/);
    assert.match((await last.textContent()) ?? "", new RegExp(`^${bot} (played|laid)`));
  }

  it("offers no Sign in when the server names no sign-in (/web-config.json is {})", TEST_TIMEOUT, async () => {
    const { page, context } = await onePerson();
    try {
      await page.locator("#create").waitFor(); // the page has read its settings before showing the form
      assert.equal(await page.locator("#sign-in").count(), 0);
      assert.equal(await page.locator("#account").getAttribute("data-signed-in"), null);
      assert.equal(await page.locator("#account").textContent(), "");
    } finally {
      await context.close();
    }
  });

  it("one person plays a whole game against a bot seat, every play with the keyboard; cards have text alternatives", TEST_TIMEOUT, async () => {
    assert.ok(browser && server);
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: server.httpUrl });
    context.setDefaultTimeout(STEP_MS);
    const page = await context.newPage();
    try {
      await page.goto("/");
      // Out of reach in one hand (21), so the hand limit ends the game after it.
      await createTwoPlayerGame(page, "scopa", "Ann", { target_score: "21", hand_limit: "1" });
      await page.locator("[data-seat-kind='1']").selectOption("bot:greedy");
      await page.locator("#create").focus();
      await page.keyboard.press("Enter");
      await page.locator(".seats tr[data-seat='1']", { hasText: "bot: greedy" }).waitFor();
      const name = decodeURIComponent(new URL(page.url()).hash.replace(/^#\//, ""));
      for (let plays = 0; ; plays += 1) {
        assert.ok(plays < MAX_PLAYS);
        await page.locator(".banner[data-turn='mine'], .game[data-status='FINISHED']").first().waitFor();
        if ((await statusOf(page)) === "FINISHED") break;
        if (plays === 1) await botReplyTold(page, name);
        const version = await versionOf(page);
        const labels = await page.locator(".hand button.card").evaluateAll((b) => b.map((e) => e.getAttribute("aria-label") ?? ""));
        for (const label of labels) assert.match(label, /^Play \S+ di (coppe|denari|bastoni|spade) \(.+ of (cups|coins|clubs|swords)\)/);
        await playByKeyboard(page, true);
        await waitForVersion(page, version + 1);
      }
      const state = await getState(name);
      assert.deepEqual(await scoresShown(page), new Map(state.sides.map((side) => [side.side, side.score])));
      assert.equal(state.finishReason, "FINISH_REASON_HAND_LIMIT");
      // The hand's scoring, told line by line after its totals: each category that scored.
      const told = await page.locator(".events li").allTextContents();
      const totals = told.findIndex((text) => text.startsWith("Hand 1 scored: "));
      assert.ok(totals >= 0, told.join(" | "));
      assert.match(told[totals + 1] ?? "", /^[A-Z][a-z ]+: .*\+\d/, told.join(" | "));
      assert.equal(await page.locator(".game").getAttribute("data-finish-reason"), "HAND_LIMIT");
      assert.match((await page.locator(".banner").textContent()) ?? "", /(won|wins) \(the game's hand limit was reached\)\.$/);

      // A made-up invite link: the join is refused in words, from the reason INVITE_INVALID.
      const stranger = await context.newPage();
      await stranger.goto(`/#/${name}/join/not-an-invite`);
      await stranger.locator("#join-name").fill("Eve");
      await stranger.locator("#join").click();
      const error = stranger.locator(".error[data-reason]");
      await error.waitFor();
      assert.equal(await error.getAttribute("data-reason"), "INVITE_INVALID");
      assert.match((await error.textContent()) ?? "", /invite link is not valid/);
    } finally {
      await context.close();
    }
  });

  it("a card played while the answer to the last play is still on its way is played once that answer is in", TEST_TIMEOUT, async () => {
    const { page, context } = await onePerson(true); // plays by PlayCard calls
    try {
      await createTwoPlayerGame(page, "scopa", "Ann", { target_score: "21", hand_limit: "1" });
      await page.locator("[data-seat-kind='1']").selectOption("bot:greedy");
      await page.locator("#create").click();
      await page.locator(".seats tr[data-seat='1']", { hasText: "bot: greedy" }).waitFor();
      await page.locator(".banner[data-turn='mine']").waitFor();
      // The answer to Ann's first play is held back: WatchGame shows the bot's reply, and Ann's
      // turn, before it.
      const heldUntil = await holdFirstPlay(page, 3000);
      const version = await versionOf(page);
      await playByKeyboard(page);
      await waitForVersion(page, version + 2); // Ann's play, then the bot's
      await page.locator(".banner[data-turn='mine']").waitFor();
      assert.ok(Date.now() < heldUntil(), "the first play's answer is still held");
      await playByKeyboard(page);
      await waitForVersion(page, version + 3);
      assert.ok(Date.now() >= heldUntil(), "the second play went after the first one's answer");
      await page.unrouteAll({ behavior: "wait" }); // its answer may come after WatchGame's
    } finally {
      await context.close();
    }
  });

  it("an action taken while the answer to the last play is still on its way is taken once that answer is in", TEST_TIMEOUT, async () => {
    // Scopa fidasse, Ann 2C 5D 6S, Bob 1B 6B 9S; the table 3D 4S 8C 9B. Both play by PlayCard calls.
    const links = await createStackedGame("fidasse", ["2C", "1B", "5D", "6B", "6S", "9S", "3D", "4S", "8C", "9B"]);
    const { ann, bob, contexts } = await twoPeople(true);
    const pages = [ann, bob];
    try {
      await join(ann, links[0] ?? "", "Ann");
      await join(bob, links[1] ?? "", "Bob");
      for (const page of pages) await page.locator(".game[data-status='ACTIVE']").waitFor();
      let version = await versionOf(ann);
      await bothAt(pages, version);
      // The answer to Ann's play is held back while WatchGame shows Bob's reply and Ann's turn.
      const heldUntil = await holdFirstPlay(ann, 5000);
      await ann.locator(".hand button[data-card='2C']").click();
      await bothAt(pages, (version += 1));
      await bob.locator(".hand button[data-card='1B']").click();
      await bothAt(pages, (version += 1));
      await ann.locator(".banner[data-turn='mine']").waitFor();
      assert.ok(Date.now() < heldUntil(), "the play's answer is still held");
      await ann.locator(".declarations button[data-card='5D']").click();
      await bothAt(pages, (version += 1));
      assert.ok(Date.now() >= heldUntil(), "the claim went after the play's answer");
      for (const page of pages) await announced(page, "Ann plays a card face down and claims a sweep: ti fidi?");
      await ann.unrouteAll({ behavior: "wait" });
    } finally {
      for (const context of contexts) await context.close();
    }
  });

  it("a public game with a turn clock: the other person finds it in the lobby, joins with its Join button (no invite link), it leaves the lobby, and each plays", TEST_TIMEOUT, async () => {
    const { ann, bob, contexts } = await twoPeople();
    try {
      await ann.goto("/");
      await createTwoPlayerGame(ann, "scopa", "Ann", {});
      await ann.locator("#public").check();
      await ann.locator("#turn-timeout").fill("600");
      await ann.locator("#create").click();
      await ann.locator(".banner", { hasText: "Waiting for players" }).waitFor();
      const name = decodeURIComponent(new URL(ann.url()).hash.replace(/^#\//, ""));
      assert.match(name, /^games\/[^/]+$/);

      await bob.goto("/");
      const row = bob.locator(`.lobby tr[data-game='${name}']`);
      await bob.locator("#lobby-refresh").click();
      await row.waitFor();
      // The preset's display name (ListRulesets), with its id as secondary text.
      await row.locator(".preset-name", { hasText: "Scopa (2 players)" }).waitFor();
      assert.equal(await row.locator(".preset-id").textContent(), "scopa");
      assert.equal(await row.locator("[data-seats]").getAttribute("data-seats"), "1/2");
      assert.ok(await row.locator("time[datetime]").count(), "the created time is shown");
      await bob.locator("#lobby-name").fill("Bob");
      await row.locator("button.join-public").click();
      await bob.locator(".game").waitFor();
      assert.equal(decodeURIComponent(new URL(bob.url()).hash.replace(/^#\//, "")), name, "no invite code in the address");
      await bob.locator(".seats tr[data-seat='1']", { hasText: "Bob" }).waitFor();
      // Presence: each page shows the other person online (both have the game open).
      await ann.locator(".seats tr[data-seat='1'] .presence[data-online='true']").waitFor();
      await bob.locator(".seats tr[data-seat='0'] .presence[data-online='true']").waitFor();

      // The game has left the lobby: a third page does not list it.
      const carol = await contexts[0]!.newPage();
      await carol.goto("/");
      await carol.locator(".lobby:not([data-refreshes='0'])").waitFor();
      const refreshes = Number(await carol.locator(".lobby").getAttribute("data-refreshes"));
      await carol.locator("#lobby-refresh").click();
      await carol.waitForFunction((n) => Number(document.querySelector(".lobby")?.getAttribute("data-refreshes")) > n, refreshes);
      assert.equal(await carol.locator(`.lobby tr[data-game='${name}']`).count(), 0);

      // The turn clock counts down on both pages; each person plays once.
      for (const page of [ann, bob]) {
        const clock = page.locator(".turn-clock[role='timer']");
        await clock.waitFor();
        assert.match((await clock.textContent()) ?? "", /^(9|10):\d\d$/);
        assert.equal(await page.locator(".clock-info").getAttribute("data-timeout-bot"), "greedy", "the form's default timeout bot");
      }
      for (let plays = 0; plays < 2; plays += 1) {
        const version = Math.max(await versionOf(ann), await versionOf(bob));
        await waitForVersion(ann, version);
        await waitForVersion(bob, version);
        const mover = (await isMyTurn(ann)) ? ann : bob;
        assert.ok(await isMyTurn(mover));
        const card = (await handOf(mover)).find((c) => c.choices > 0);
        assert.ok(card);
        await mover.locator(`.hand button[data-card='${card.code}']`).click();
        if (card.choices > 1) await mover.locator(".choice [data-choice='0']").click();
        // Both pages at the new version (the other page's stream may lag the mover's response).
        await waitForVersion(ann, version + 1);
        await waitForVersion(bob, version + 1);
        assert.notEqual(mover, (await isMyTurn(ann)) ? ann : bob, "the turn passed");
      }
    } finally {
      for (const context of contexts) await context.close();
    }
  });

  it("the lobby pages through the public games (Next and Previous) and filters them by game", TEST_TIMEOUT, async () => {
    const creators = ["Giulia", "Marco", "Sofia", "Luca", "Chiara"];
    const scopa: string[] = [];
    for (let i = 0; i < LOBBY_PAGE + 3; i += 1) scopa.push(await createPublicGame("scopa", creators[i % creators.length] ?? "Ann"));
    const spazzino = [await createPublicGame("spazzino", "Elena"), await createPublicGame("spazzino", "Paolo")];
    const { page, context } = await onePerson();
    try {
      const lobby = page.locator(".lobby");
      const shown = (): Promise<string[]> => page.locator(".lobby tr[data-game]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-game") ?? ""));
      /** Clicks `control` (or changes the filter) and waits for the lobby's answer to it. */
      const after = async (change: () => Promise<unknown>): Promise<void> => {
        const refreshes = Number(await lobby.getAttribute("data-refreshes"));
        await change();
        await page.waitForFunction((n) => Number(document.querySelector(".lobby")?.getAttribute("data-refreshes")) > n, refreshes);
      };
      await page.locator(".lobby:not([data-refreshes='0'])").waitFor();
      await after(() => page.locator("#lobby-refresh").click()); // after the last game was created
      const first = await shown();
      assert.equal(first.length, LOBBY_PAGE, "a full first page");
      assert.equal(await lobby.getAttribute("data-page"), "1");
      assert.ok(await page.locator("#lobby-previous").isDisabled(), "no page before the first");
      assert.ok(await page.locator("#lobby-next").isEnabled(), "more games than one page");
      assert.deepEqual(first.slice(0, 2), [spazzino[1], spazzino[0]], "newest first");
      await page.evaluate(() => document.querySelector(".lobby")?.scrollIntoView({ block: "start" }));
      await screenshot(page, "lobby");

      await after(() => page.locator("#lobby-next").click());
      const second = await shown();
      assert.equal(await lobby.getAttribute("data-page"), "2");
      assert.match((await page.locator("#lobby-page").textContent()) ?? "", /Page 2/);
      assert.ok(second.length > 0);
      assert.deepEqual(second.filter((game) => first.includes(game)), [], "no game on both pages");
      assert.deepEqual([...scopa, ...spazzino].filter((game) => !first.includes(game) && !second.includes(game)), [], "every public game on one of the pages");
      assert.ok(await page.locator("#lobby-next").isDisabled(), "the last page");
      await page.evaluate(() => document.querySelector(".lobby-pages")?.scrollIntoView({ block: "end" }));
      await screenshot(page, "lobby-page-2");

      await after(() => page.locator("#lobby-previous").click());
      assert.deepEqual(await shown(), first, "Previous shows the first page again");
      assert.ok(await page.locator("#lobby-previous").isDisabled());

      // The filter: only spazzino games, from the first page (the token belongs to the old filter).
      await after(() => page.locator("#lobby-next").click());
      await after(() => page.locator("#lobby-preset").selectOption("spazzino"));
      assert.equal(await lobby.getAttribute("data-page"), "1");
      assert.deepEqual(new Set(await shown()), new Set(spazzino));
      assert.deepEqual(await page.locator(".lobby tr[data-game] .preset-name").allTextContents(), ["Spazzino", "Spazzino"], "each game by its display name");
      assert.deepEqual(await page.locator(".lobby tr[data-game] .preset-id").allTextContents(), ["spazzino", "spazzino"], "and its id");
      assert.ok(await page.locator("#lobby-next").isDisabled());
      await after(() => page.locator("#lobby-preset").selectOption("scopone"));
      assert.equal(await page.locator(".lobby tr[data-game]").count(), 0);
      assert.match((await page.locator("#lobby-empty").textContent()) ?? "", /No public game of this kind/);
      await after(() => page.locator("#lobby-preset").selectOption(""));
      assert.deepEqual(await shown(), first, "every game again");
    } finally {
      await context.close();
    }
  });

  it("a turn clock's timeout choices appear only with a clock; a seat set to forfeit at its second timeout loses the game by resignation", TEST_TIMEOUT, async () => {
    const { page, context } = await onePerson();
    try {
      await createTwoPlayerGame(page, "scopa", "Ann", {});
      await page.locator("[data-seat-kind='1']").selectOption("bot:greedy");
      assert.ok(await page.locator("#timeout-action").isHidden(), "no timeout choices without a clock");
      await page.locator("#turn-timeout").fill("1");
      await page.locator("#timeout-action").waitFor();
      assert.ok(await page.locator("#forfeit-after").isHidden(), "forfeit_after only for a forfeit");
      await page.locator("#timeout-action").selectOption("forfeit");
      await page.locator("#forfeit-after").fill("2");
      await page.locator("#turn-timeout").fill("");
      assert.ok(await page.locator("#timeout-action").isHidden(), "the choices go with the clock");
      await page.locator("#turn-timeout").fill("1");
      await page.locator("#create").click();
      // Ann (the first seat, the first to play) never plays: the bot plays her first late turn, the second forfeits.
      await page.locator(".game[data-status='FINISHED']").waitFor({ timeout: 3 * STEP_MS });
      const name = decodeURIComponent(new URL(page.url()).hash.replace(/^#\//, ""));
      const state = await getState(name);
      assert.equal(state.finishReason, "FINISH_REASON_RESIGNED");
      assert.deepEqual(state.winners, [1]);
      assert.equal(state.seats[0]?.timeouts, 2, "the seat forfeited at its second timeout");
      assert.equal(await page.locator(".game").getAttribute("data-finish-reason"), "RESIGNED");
      assert.match((await page.locator(".banner").textContent()) ?? "", /won \(you resigned\)/);
    } finally {
      await context.close();
    }
  });

  it("Resign asks first; Keep playing changes nothing, Yes ends the game, resigned, for both people", TEST_TIMEOUT, async () => {
    const { ann, bob, contexts } = await twoPeople();
    try {
      await ann.goto("/");
      await createTwoPlayerGame(ann, "scopa", "Ann", {});
      await ann.locator("#create").click();
      assert.equal(await ann.locator("[data-key='resign']").count(), 0, "no Resign before the game starts");
      await join(bob, await inviteLink(ann, 1), "Bob");
      await ann.locator(".game[data-status='ACTIVE']").waitFor();
      const name = decodeURIComponent(new URL(ann.url()).hash.replace(/^#\//, ""));
      const version = await versionOf(ann);

      await ann.locator("[data-key='resign']").click();
      const question = ann.locator(".resign[role='alertdialog']");
      assert.match((await question.textContent()) ?? "", /Resign this game\? It ends now and Bob wins/);
      assert.ok(await ann.locator("[data-key='resign-cancel']:focus").count(), "the focus is on Keep playing");
      await ann.locator("[data-key='resign-cancel']").click();
      assert.equal(await question.count(), 0);
      await ann.locator("[data-key='resign']").click();
      await ann.keyboard.press("Escape");
      assert.equal(await question.count(), 0, "Esc withdraws the question");
      assert.equal(await versionOf(ann), version, "nothing was sent");
      assert.equal((await getState(name)).status, "GAME_STATUS_ACTIVE");

      await ann.locator("[data-key='resign']").click();
      await ann.locator("[data-key='resign-confirm']").click();
      for (const page of [ann, bob]) await page.locator(".game[data-status='FINISHED'][data-finish-reason='RESIGNED']").waitFor();
      assert.match((await ann.locator(".banner").textContent()) ?? "", /^Bob won \(you resigned\)\.$/);
      assert.match((await bob.locator(".banner").textContent()) ?? "", /^You won! Bob wins \(Ann resigned\)\.$/);
      for (const page of [ann, bob]) {
        await page.locator(".seats tr[data-seat='0']", { hasText: "(resigned)" }).waitFor();
        await page.locator(".events li", { hasText: "Ann resigned." }).waitFor();
        assert.equal(await page.locator("[data-key='resign']").count(), 0, "no Resign in a finished game");
      }
      const state = await getState(name);
      assert.equal(state.finishReason, "FINISH_REASON_RESIGNED");
      assert.deepEqual(state.winners, [1]);
      assert.equal(state.seats[0]?.resigned, true);
    } finally {
      for (const context of contexts) await context.close();
    }
  });

  for (const noWebSocket of [false, true]) {
    it(`Rematch: Bob asks, both pages go to the same rematch and play it with their seats (${noWebSocket ? "WatchGame" : "sessions"})`, TEST_TIMEOUT, async () => {
      const { ann, bob, contexts } = await twoPeople(noWebSocket);
      try {
        await ann.goto("/");
        await createTwoPlayerGame(ann, "scopa", "Ann", {});
        await ann.locator("#create").click();
        await join(bob, await inviteLink(ann, 1), "Bob");
        await ann.locator(".game[data-status='ACTIVE']").waitFor();
        const name = decodeURIComponent(new URL(ann.url()).hash.replace(/^#\//, ""));
        assert.equal(await ann.locator("[data-key='rematch']").count(), 0, "no Rematch while the game runs");
        await ann.locator("[data-key='resign']").click();
        await ann.locator("[data-key='resign-confirm']").click();
        for (const page of [ann, bob]) await page.locator(".game[data-status='FINISHED'] [data-key='rematch']").waitFor();

        await bob.locator("[data-key='rematch']").click();
        // The click starts RematchGame; the finished game names its rematch once it is linked.
        let rematch = "";
        for (let tries = 0; tries < 100 && !rematch; tries++) {
          rematch = (await getState(name)).rematchGame ?? "";
          if (!rematch) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.match(rematch, /^games\/.+/);
        assert.notEqual(rematch, name);
        for (const page of [ann, bob]) {
          await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/${rematch}`);
          await page.locator(".game[data-status='ACTIVE']").waitFor();
          assert.equal((await handOf(page)).length, 3, "the seat's own hand: its token acts for the rematch");
        }
        const state = await getState(rematch);
        assert.deepEqual(state.seats.map((seat) => seat.displayName), ["Ann", "Bob"]);
        // Seat 1 dealt the first game, seat 0 deals the rematch: Bob (seat 1) leads.
        assert.equal(await isMyTurn(bob), true);
        const before = await versionOf(ann);
        await bob.locator(".hand button.card").first().click();
        const choice = bob.locator("[data-key='choice-0']");
        if (await choice.count()) await choice.click();
        await waitForVersion(ann, before + 1);
      } finally {
        for (const context of contexts) await context.close();
      }
    });
  }

  it("create, join and play a complete game of scopa over sessions; an illegal play shows its error, a reload resumes, the sessions outlive the watch idle limit", TEST_TIMEOUT, async () => {
    await playGame("scopa", { target_score: "4" }, { illegalAt: 3, reloadAt: 6, idleAt: 9, screenshots: true });
  });

  it("without WebSocket the pages fall back to WatchGame and calls: a complete game of spazzino; a dropped connection catches up, an idle drop resumes", TEST_TIMEOUT, async () => {
    await playGame("spazzino", { target_score: "4" }, { offlineAt: 5, idleAt: 8, stream: true });
  });

  it("join and play a complete game of fattoria from a stacked deal; a farm built, raised and taken shows on both tables", TEST_TIMEOUT, async () => {
    // Ann 2C 7C 9C, Bob 1D 8D 3S, the table 5B 6S 9B 4D (tests/integration/helpers.py FARM_DEAL):
    // Ann's one build is 2C on 5B (7), Bob's one raise 1D (8), and Bob's next play takes it.
    const deal = ["2C", "1D", "7C", "8D", "9C", "3S", "5B", "6S", "9B", "4D"];
    await playGame("fattoria", { target_score: "2" }, { farms: true, deal });
  });

  it("the timeout bot chosen in the form plays a turn whose time ran out, and the game says which bot it is", TEST_TIMEOUT, async () => {
    const { page, context } = await onePerson();
    try {
      await createTwoPlayerGame(page, "scopa", "Ann", {});
      await page.locator("[data-seat-kind='1']").selectOption("bot:greedy");
      assert.ok(await page.locator("#timeout-bot").isHidden(), "no timeout bot without a clock");
      await page.locator("#turn-timeout").fill("2");
      await page.locator("#timeout-bot").waitFor();
      assert.equal(await page.locator("#timeout-bot").inputValue(), "greedy", "the server's default is preselected");
      assert.deepEqual(await page.locator("#timeout-bot option").evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value)), ["random", "greedy", "ismcts"]);
      await page.locator("#timeout-action").selectOption("forfeit");
      assert.ok(await page.locator("#timeout-bot").isVisible(), "the bot plays the timeouts before a forfeit too");
      await page.locator("#timeout-action").selectOption("bot");
      await page.locator("#timeout-bot").selectOption("random");
      await page.evaluate(() => document.querySelector(".lobby-options")?.scrollIntoView({ block: "center" }));
      await screenshot(page, "new-game-clock");
      await page.locator("#create").click();

      const info = page.locator(".game-header .clock-info");
      await info.waitFor();
      assert.equal(await info.getAttribute("data-timeout-bot"), "random");
      assert.equal(await info.textContent(), "Turn clock: 2 s a turn; the random bot plays a turn that runs out");
      const name = decodeURIComponent(new URL(page.url()).hash.replace(/^#\//, ""));
      // Ann (the first to play) does not play: the random bot plays her turn when its 2 s run out.
      await page.locator(".events li", { hasText: "Ann ran out of time (timeout 1); the random bot plays for them." }).waitFor({ timeout: 3 * STEP_MS });
      const state = await getState(name);
      assert.equal(state.timeoutBot, "random");
      assert.ok((state.seats[0]?.timeouts ?? 0) >= 1);
      await page.locator("[data-key='resign']").click();
      await page.locator("[data-key='resign-confirm']").click();
      await page.locator(".game[data-status='FINISHED']").waitFor();
    } finally {
      await context.close();
    }
  });

  it("Scopa fidasse: claim a sweep and answer it with the buttons; trusted it stands unseen, a false one doubted is laid, a true one doubted stands", TEST_TIMEOUT, async () => {
    // Ann 2C 5D 6S, Bob 1B 6B 9S; the table 3D 4S 8C 9B.
    const links = await createStackedGame("fidasse", ["2C", "1B", "5D", "6B", "6S", "9S", "3D", "4S", "8C", "9B"]);
    const { ann, bob, contexts, name } = await seatedPeople(links);
    const pages = [ann, bob];
    const claims = (page: Page): Promise<string[]> => page.locator(".declarations button[data-card]").evaluateAll((b) => b.map((e) => e.getAttribute("data-card") ?? ""));
    const answers = (page: Page): Promise<string[]> => page.locator(".declarations button[data-answer]").evaluateAll((b) => b.map((e) => e.getAttribute("data-answer") ?? ""));
    const sweeps = (page: Page, side: number): Promise<string | null> => page.locator(`[data-side-sweeps='${side}']`).first().textContent();
    try {
      let version = await versionOf(ann);
      await bothAt(pages, version);
      // Ann may claim with any card of her hand, beside her plays; Bob, not to play, has no button.
      assert.deepEqual((await claims(ann)).sort(), ["2C", "5D", "6S"]);
      assert.match((await ann.locator(".declarations button[data-card='2C']").textContent()) ?? "", /^Claim a sweep with Due di coppe \(ti fidi\?\)$/);
      assert.equal(await bob.locator(".declarations button").count(), 0);

      // 1. Ann claims with the 2 (it takes nothing); Bob is asked, trusts, and never sees the card.
      await ann.locator(".declarations button[data-card='2C']").click();
      await bothAt(pages, (version += 1));
      for (const page of pages) await announced(page, "Ann plays a card face down and claims a sweep: ti fidi?");
      assert.equal(await bob.locator(".banner").textContent(), "Ann claims a sweep: do you trust it?");
      assert.equal(await bob.locator("h1").textContent(), "Scopa fidasse"); // ListRulesets' display name
      assert.ok(await isMyTurn(bob), "Bob's answer is awaited");
      assert.deepEqual(await answers(bob), ["TRUST", "DOUBT"]);
      assert.deepEqual(await bob.locator(".declarations button").allTextContents(), ["Trust the sweep", "Doubt the sweep"]);
      assert.equal(await ann.locator(".banner").textContent(), "Bob to answer your claimed sweep.");
      assert.equal(await ann.locator(".declarations button").count(), 0, "the claimer waits for the answer");
      assert.equal((await handOf(ann)).length, 2, "the claimed card left Ann's hand");
      assert.deepEqual(await looseCards(bob), ["3D", "4S", "8C", "9B"], "nothing moved yet");
      await bob.locator(".declarations").scrollIntoViewIfNeeded();
      await screenshot(bob, "claim");
      await bob.locator(".declarations button[data-answer='TRUST']").click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Bob trusts the sweep.");
        await announced(page, "The sweep Ann claimed is trusted: it stands, its card unseen. Scopa! Ann swept the table.");
        assert.deepEqual(await looseCards(page), [], "the table went to Ann");
        assert.equal(await sweeps(page, 0), "1");
      }
      assert.ok(!((await bob.locator(".game").textContent()) ?? "").includes("Due di coppe"), "Bob's page never names the trusted card");

      // 2. Bob lays his ace; Ann claims with the 5 and Bob doubts: false, the 5 is laid, Ann loses a point.
      await bob.locator(".hand button[data-card='1B']").click();
      await bothAt(pages, (version += 1));
      await ann.locator(".declarations button[data-card='5D']").click();
      await bothAt(pages, (version += 1));
      await bob.locator(".declarations button[data-answer='DOUBT']").click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Bob doubts the sweep.");
        await announced(page, "Bob doubted rightly: Ann's Cinque di denari does not sweep the table; it is laid on the table. Ann loses 1 (false claim).");
        assert.deepEqual(await looseCards(page), ["1B", "5D"]);
        assert.equal(await sweeps(page, 0), "1");
      }

      // 3. Bob claims with his 6 (1 + 5: a true sweep) and Ann doubts: the sweep stands, Ann loses a point.
      await bob.locator(".declarations button[data-card='6B']").click();
      await bothAt(pages, (version += 1));
      assert.equal(await ann.locator(".banner").textContent(), "Bob claims a sweep: do you trust it?");
      await ann.locator(".declarations button[data-answer='DOUBT']").click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Ann doubted, but Bob's Sei di bastoni does sweep the table: the sweep stands. Ann loses 1 (wrong doubt). Scopa! Bob swept the table.");
        assert.deepEqual(await looseCards(page), []);
        assert.equal(await sweeps(page, 1), "1");
      }
      const state = await getState(name);
      assert.deepEqual(state.sides.map((side) => side.sweeps ?? 0), [1, 1], "the sweeps shown are the server's");
    } catch (failure) {
      await screenshot(ann, "failed-fidasse-ann").catch(() => undefined);
      await screenshot(bob, "failed-fidasse-bob").catch(() => undefined);
      throw failure;
    } finally {
      for (const context of contexts) await context.close();
    }
  });

  it("Scopa della fattoria: a farm built with its button, raised by the other person with theirs, then taken; both tables show each step", TEST_TIMEOUT, async () => {
    // Ann 3C 7S 5B, Bob 2B 9S 6S; the table 4D 8C 9C 10C.
    const links = await createStackedGame("fattoria", ["3C", "2B", "7S", "9S", "5B", "6S", "4D", "8C", "9C", "10C"]);
    const { ann, bob, contexts } = await seatedPeople(links);
    const pages = [ann, bob];
    const farms = (page: Page): Promise<{ value: string; owner: string; cards: string[] }[]> =>
      page.locator(".table li.farm").evaluateAll((farms) =>
        farms.map((f) => ({
          value: f.getAttribute("data-value") ?? "",
          owner: f.getAttribute("data-owner") ?? "",
          cards: [...f.querySelectorAll("li.card")].map((c) => c.getAttribute("data-card") ?? ""),
        })),
      );
    try {
      let version = await versionOf(ann);
      await bothAt(pages, version);
      // 1. Ann builds: her 3 onto the 4, holding the 7 that takes the farm.
      const build = ann.locator(".builds button");
      assert.equal(await build.count(), 1);
      assert.equal(await build.getAttribute("data-build"), "build");
      assert.equal(await build.textContent(), "Build a farm of 7: Tre di coppe on Quattro di denari");
      assert.equal(await bob.locator(".builds button").count(), 0, "no build out of turn");
      await build.click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Ann builds a farm of 7");
        assert.deepEqual(await farms(page), [{ value: "7", owner: "0", cards: ["4D", "3C"] }]);
        assert.match((await page.locator(".table li.farm").getAttribute("aria-label")) ?? "", /^Farm of 7, Ann's: Quattro di denari \+ Tre di coppe$/);
        assert.deepEqual(await looseCards(page), ["8C", "9C", "10C"]);
      }

      // 2. Bob raises it with his 2 to 9, holding the 9; the farm becomes his.
      const raise = bob.locator(".builds button[data-build='raise']");
      assert.equal(await raise.count(), 1);
      assert.equal(await raise.getAttribute("data-value"), "9");
      assert.equal(await raise.textContent(), "Raise the farm of 9: Due di bastoni on Quattro di denari + Tre di coppe");
      await bob.locator(".builds").scrollIntoViewIfNeeded();
      await screenshot(bob, "farm-raise");
      await raise.click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Bob raises the farm to 9");
        assert.deepEqual(await farms(page), [{ value: "9", owner: "1", cards: ["4D", "3C", "2B"] }]);
      }

      // 3. Ann, freed of her farm, lays her 7; Bob's 9 then takes the farm and the loose 9.
      assert.equal(await ann.locator(".builds button").count(), 0);
      await ann.locator(".hand button[data-card='7S']").click();
      await bothAt(pages, (version += 1));
      await bob.locator(".hand button[data-card='9S']").click();
      await bothAt(pages, (version += 1));
      for (const page of pages) {
        await announced(page, "Bob takes the farm of 9");
        assert.deepEqual(await farms(page), []);
        assert.deepEqual(await looseCards(page), ["7S", "8C", "10C"]);
      }
    } catch (failure) {
      await screenshot(ann, "failed-fattoria-farms-ann").catch(() => undefined);
      await screenshot(bob, "failed-fattoria-farms-bob").catch(() => undefined);
      throw failure;
    } finally {
      for (const context of contexts) await context.close();
    }
  });
});
