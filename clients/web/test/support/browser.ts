// Headless Chromium for the tests: Debian's /usr/bin/chromium (or $SCOPA_CHROMIUM), driven by
// playwright-core, which downloads nothing. The machine has no network beyond loopback.
import { appendFileSync, existsSync, mkdirSync, copyFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** The Chromium binary the tests drive. */
export const CHROMIUM = process.env["SCOPA_CHROMIUM"] ?? "/usr/bin/chromium";

/**
 * Why the browser tests cannot run here, or undefined when they can. A skip is noted in
 * $SCOPA_SKIPPED_DIR/web.txt (make test lists it at its end); with SCOPA_REQUIRE_ALL=1 (.ci/run)
 * a missing browser throws instead, so CI runs everything.
 */
export function whyNoBrowser(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `needs chromium, which this machine lacks (no ${CHROMIUM}): install it with \`apt-get install chromium\` or set SCOPA_CHROMIUM`;
  if (process.env["SCOPA_REQUIRE_ALL"] === "1") {
    throw new Error(`${why} (SCOPA_REQUIRE_ALL=1 runs every test)`);
  }
  const folder = process.env["SCOPA_SKIPPED_DIR"];
  if (folder) {
    mkdirSync(folder, { recursive: true });
    appendFileSync(join(folder, "web.txt"), `clients/web: the web client in headless Chromium\t${why}\n`);
  }
  return why;
}

/** The flags of a quiet, offline, throwaway browser (playwright adds a fresh --user-data-dir). */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--headless", ...FLAGS], timeout: 60_000 });
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** Where the tests save their screenshots (git-ignored): clients/web/test-artifacts. */
export const ARTIFACTS = resolve(HERE, "..", "test-artifacts");

/**
 * Saves a screenshot of `page` as ARTIFACTS/<name>.png, and also into $SCOPA_SCREENSHOTS
 * (relative to clients/web) when it is set, as `make web-screenshots` does for docs/images.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  // The viewport only: a full-page shot resizes the page and leaves its scroll position to
  // jump at the next focus change, which made the click after it miss its button.
  await page.screenshot({ path, animations: "disabled", caret: "hide" });
  const docs = process.env["SCOPA_SCREENSHOTS"];
  if (docs) {
    const target = resolve(HERE, "..", docs);
    mkdirSync(target, { recursive: true });
    copyFileSync(path, join(target, `web-client-${name}.png`));
  }
}
