// Playing through the web client as a person would: only clicks, typing and what the page shows.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";

/** A step's bound: generous, since the machine is shared and slow under load. */
export const STEP_MS = 20_000;

/** The game's version the page shows (data-version of the game screen). */
export async function versionOf(page: Page): Promise<number> {
  return Number(await page.locator(".game").getAttribute("data-version", { timeout: STEP_MS }));
}

/** Waits until the page shows version `version` or later. */
export async function waitForVersion(page: Page, version: number): Promise<void> {
  await page.waitForFunction(
    (v) => Number(document.querySelector(".game")?.getAttribute("data-version") ?? -1) >= v,
    version,
    { timeout: STEP_MS },
  );
}

/** The game status the page shows ("ACTIVE", "FINISHED", ...). */
export async function statusOf(page: Page): Promise<string> {
  return (await page.locator(".game").getAttribute("data-status", { timeout: STEP_MS })) ?? "";
}

/** True when the page says it is its seat's turn. */
export async function isMyTurn(page: Page): Promise<boolean> {
  return (await page.locator(".banner").getAttribute("data-turn", { timeout: STEP_MS })) === "mine";
}

/** The codes of the cards in the page's hand with how many legal plays each has. */
export async function handOf(page: Page): Promise<{ code: string; choices: number }[]> {
  return page.locator(".hand button.card").evaluateAll((buttons) =>
    buttons.map((b) => ({ code: b.getAttribute("data-card") ?? "", choices: Number(b.getAttribute("data-choices")) })),
  );
}

/** Every side's score as the seats table shows it, by side. */
export async function scoresShown(page: Page): Promise<Map<number, number>> {
  const cells = await page
    .locator("[data-side-score]")
    .evaluateAll((tds) => tds.map((td) => [Number(td.getAttribute("data-side-score")), Number(td.textContent)] as const));
  return new Map(cells);
}

/** Fills the new-game form for a 2-player `preset`: me (named) and one open seat. */
export async function createTwoPlayerGame(page: Page, preset: string, name: string, options: Record<string, string>): Promise<void> {
  await page.locator("#preset").selectOption(preset);
  await page.locator("#players").selectOption("2");
  await page.locator("[data-seat-kind='0']").selectOption("me");
  await page.locator("[data-seat-name='0']").fill(name);
  await page.locator("[data-seat-kind='1']").selectOption("open");
  await page.locator("details.options summary").click();
  for (const [option, value] of Object.entries(options)) {
    const input = page.locator(`#option-${option}`);
    await input.fill(value);
    await input.blur(); // the change event, as when a person moves on
  }
}

/** The invite link of `seat` on the creator's game screen. */
export async function inviteLink(page: Page, seat: number): Promise<string> {
  const link = await page.locator(`[data-invite='${seat}']`).inputValue({ timeout: STEP_MS });
  assert.match(link, /#\/games\/[^/]+\/join\/.+/);
  return link;
}

/** Opens an invite link and joins as `name`. */
export async function join(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await page.locator("#join-name").fill(name);
  await page.locator("#join").click();
  await page.locator(".game").waitFor({ timeout: STEP_MS });
}
