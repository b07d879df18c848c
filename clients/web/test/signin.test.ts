// Signing in through the web client: the OpenID Connect authorization code flow with PKCE against
// a real provider (tests/oidc/provider.mjs, panva's oidc-provider) and a real scopa server whose
// SCOPA_OIDC_ISSUER is that provider, in headless Chromium. Alice signs in and creates a game, Bob
// signs in and joins it, they play; then Alice on a second device (a fresh browser context, no
// seat token anywhere) signs in again, gets her seat back and plays, past her first access
// token's expiry (the page renews it), and signs out.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import { signedInCalls } from "../src/api.js";
import { displayName } from "../src/auth.js";
import { freePort, startRedis, startScopaServer, stop, type Running, type ScopaServer } from "../../typescript/test/support/processes.js";
import { launchBrowser, screenshot, whyNoBrowser } from "./support/browser.js";
import { startProvider, stopProvider, whyNoProvider, type Provider } from "./support/oidc.js";
import { createTwoPlayerGame, handOf, inviteLink, isMyTurn, join, STEP_MS, versionOf, waitForVersion } from "./support/ui.js";

const AUDIENCE = "https://scopa.test/api";
const CLIENT_ID = "scopa-web-test";
/** The web client's access token lifetime: the page renews it 20 s before it expires. */
const TOKEN_TTL_S = 25;
const TEST_TIMEOUT = { timeout: 300_000 };
const DESKTOP = { width: 1100, height: 900 };

describe("the sign-in's parts (no browser)", () => {
  /** The authorization header a call goes out with through signedInCalls(bearer). */
  async function sent(bearer: string | undefined, seatToken?: string): Promise<string | null> {
    const header = new Headers(seatToken ? { authorization: `Bearer ${seatToken}` } : {});
    const next = async (request: UnaryRequest): Promise<UnaryResponse> => ({ header: request.header }) as unknown as UnaryResponse;
    const response = await signedInCalls(async () => bearer)(next as never)({ header } as unknown as UnaryRequest);
    return response.header.get("authorization");
  }

  it("sends the signed-in player's access token on a call without a seat token", async () => {
    assert.equal(await sent("access-token"), "Bearer access-token");
  });

  it("leaves a call's seat token alone, and sends nothing signed out", async () => {
    assert.equal(await sent("access-token", "seat-token"), "Bearer seat-token");
    assert.equal(await sent(undefined), null);
  });

  it("shows the ID token's name, else preferred_username, never the subject", () => {
    assert.equal(displayName({ sub: "s-1", name: " Alice Liddell ", preferred_username: "alice" }), "Alice Liddell");
    assert.equal(displayName({ sub: "s-1", name: "", preferred_username: "alice" }), "alice");
    assert.equal(displayName({ sub: "s-1" }), "a signed-in player");
  });
});

const skip = whyNoBrowser() ?? whyNoProvider();

describe("signing in to the web client (OpenID Connect, code flow with PKCE)", { skip }, () => {
  let redis: Running | undefined;
  let server: ScopaServer | undefined;
  let provider: Provider | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  before(async () => {
    redis = await startRedis();
    const providerPort = await freePort();
    server = await startScopaServer(
      redis.port,
      async (s) => {
        try {
          return (await fetch(`${s.httpUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      },
      {
        SCOPA_WEB_UI: "on",
        SCOPA_OIDC_ISSUER: `http://127.0.0.1:${providerPort}`,
        SCOPA_OIDC_AUDIENCE: AUDIENCE,
        SCOPA_OIDC_LEEWAY_S: "1",
        SCOPA_OIDC_MIN_REFRESH_S: "1",
        SCOPA_WEB_OIDC_CLIENT_ID: CLIENT_ID,
        SCOPA_RATE_LIMIT_CREATE_GAME: "off",
      },
    );
    provider = await startProvider({
      port: providerPort,
      audience: AUDIENCE,
      clientId: CLIENT_ID,
      redirectUri: `${server.httpUrl}/`,
      ttlS: TOKEN_TTL_S,
      accounts: { alice: "Alice Liddell" },
    });
    browser = await launchBrowser();
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (provider) await stopProvider(provider);
    if (server) await stop(server);
    if (redis) await stop(redis);
  });

  /** A fresh browser context (a device of its own: no cookies, no storage) at `path`. */
  async function device(path = "/"): Promise<Page> {
    assert.ok(browser && server);
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: server.httpUrl });
    context.setDefaultTimeout(STEP_MS);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(path);
    return page;
  }

  /** Sign in on `page` as `login` through the provider's pages; back on the page, signed in. */
  async function signIn(page: Page, login: string, shown: string): Promise<void> {
    await page.locator("#sign-in").click();
    await page.locator("input[name='login']").fill(login);
    await page.locator("input[name='password']").fill("any password works here");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click(); // the consent page
    await page.locator("#signed-in-as").waitFor();
    assert.equal(await page.locator("#signed-in-as strong").textContent(), shown);
    const url = new URL(page.url());
    assert.equal(url.origin, server?.httpUrl);
    assert.equal(url.search, "", "the code and state leave the address bar");
  }

  /** The seat tokens the page's tab holds (sessionStorage "scopa.token.*"), non-empty ones. */
  function seatTokens(page: Page): Promise<string[]> {
    return page.evaluate(() =>
      Object.keys(sessionStorage)
        .filter((key) => key.startsWith("scopa.token."))
        .map((key) => sessionStorage.getItem(key) ?? "")
        .filter((token) => token !== ""),
    );
  }

  /** Plays the first playable card of the page's hand (the first capture if it asks). */
  async function playOne(page: Page): Promise<void> {
    const card = (await handOf(page)).find((c) => c.choices > 0);
    assert.ok(card, "a playable card");
    const version = await versionOf(page);
    await page.locator(`.hand button[data-card='${card.code}']`).click();
    if (card.choices > 1) await page.locator("[data-choice='0']").click();
    await waitForVersion(page, version + 1);
  }

  it("signs in, creates and joins without seat tokens, and the seat follows the player to another device", TEST_TIMEOUT, async () => {
    // Alice signs in (the ID token's name is shown) and creates a game with one open seat.
    const alice = await device();
    await signIn(alice, "alice", "Alice Liddell");
    await screenshot(alice, "signed-in");
    await createTwoPlayerGame(alice, "scopa", "Alice", { target_score: "11" });
    await alice.locator("#create").click();
    const link = await inviteLink(alice, 1);
    const hash = new URL(link).hash.replace(/\/join\/.*$/, "");
    assert.deepEqual(await seatTokens(alice), [], "a signed-in creator holds no seat token");
    assert.equal(await alice.locator(".hand").count(), 1);

    // Bob signs in (no name: his login is shown) and joins by the invite link.
    const bob = await device();
    await signIn(bob, "bob", "bob");
    await join(bob, link, "Bob");
    assert.deepEqual(await seatTokens(bob), []);
    for (const page of [alice, bob]) await page.locator(".game[data-status='ACTIVE']").waitFor();

    // One play, by whoever's turn it is; both pages see it.
    const first = (await isMyTurn(alice)) ? alice : bob;
    await playOne(first);
    const version = await versionOf(first);
    for (const page of [alice, bob]) await waitForVersion(page, version);

    // Alice's second device: the game as a spectator, then signed in, her seat and hand.
    const laptop = await device(`/${hash}`);
    await laptop.locator(".game").waitFor();
    assert.equal(await laptop.locator(".hand").count(), 0, "a spectator before signing in");
    await signIn(laptop, "alice", "Alice Liddell");
    assert.equal(new URL(laptop.url()).hash, hash, "back on the game after signing in");
    await laptop.locator(".hand").waitFor();
    assert.equal(await laptop.locator(".seats tr[data-seat='0'] th").textContent().then((t) => t?.includes("(you)")), true);
    assert.deepEqual(await seatTokens(laptop), []);
    const signedInAt = Date.now();
    if (!(await isMyTurn(laptop))) await playOne(bob);
    await waitForVersion(laptop, await versionOf(bob));
    await playOne(laptop);
    await waitForVersion(alice, await versionOf(laptop));

    // Past the first access token's expiry the laptop still plays: the page renewed the token
    // (by the refresh token) and said hello again with it.
    await sleep(Math.max(0, signedInAt + (TOKEN_TTL_S + 3) * 1000 - Date.now()));
    assert.ok(Number(await laptop.locator("#account").getAttribute("data-renewals")) >= 1, "the token was renewed");
    await playOne(bob);
    await waitForVersion(laptop, await versionOf(bob));
    await playOne(laptop);
    await waitForVersion(bob, await versionOf(laptop));

    // Signing out ends the provider's session too; the page is a spectator's again.
    await laptop.locator("#sign-out").click();
    await laptop.getByRole("button", { name: "Yes, sign me out" }).click();
    await laptop.locator("#sign-in").waitFor();
    assert.equal(new URL(laptop.url()).hash, hash);
    await laptop.locator(".game").waitFor();
    assert.equal(await laptop.locator(".hand").count(), 0, "signed out: a spectator again");
  });

  it("a cancelled sign-in says so and leaves the page signed out and working", TEST_TIMEOUT, async () => {
    const page = await device();
    await page.locator("#sign-in").click();
    await page.getByRole("link", { name: "[ Cancel ]" }).click();
    await page.locator("#sign-in-notice").waitFor();
    assert.match((await page.locator("#sign-in-notice").textContent()) ?? "", /^Signing in failed/);
    assert.equal(new URL(page.url()).search, "");
    assert.equal(await page.locator("#account").getAttribute("data-signed-in"), "false");
    await page.locator("#create").waitFor();
  });

  // Last: it stops the provider.
  it("a sign-in that cannot be renewed expires into a signed-out page; Sign in says the provider is away", TEST_TIMEOUT, async () => {
    const page = await device();
    await signIn(page, "carol", "carol");
    const signedInAt = Date.now();
    assert.ok(provider);
    await stopProvider(provider);
    await page.locator("#sign-in-notice").waitFor({ timeout: (TOKEN_TTL_S + 10) * 1000 });
    assert.ok(Date.now() - signedInAt >= (TOKEN_TTL_S - 1) * 1000, "signed out only once the token expired");
    assert.match((await page.locator("#sign-in-notice").textContent()) ?? "", /sign-in has expired/);
    assert.equal(await page.locator("#account").getAttribute("data-signed-in"), "false");
    assert.equal(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith("oidc.user:")).length), 0, "the tokens are forgotten");
    await page.locator("#sign-in").click();
    await page.locator("#sign-in-notice", { hasText: "cannot be reached" }).waitFor();
    assert.equal(new URL(page.url()).origin, server?.httpUrl, "still on the page");
  });
});
