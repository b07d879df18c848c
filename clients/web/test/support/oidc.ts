// A real OpenID Connect provider for the sign-in tests: tests/oidc/provider.mjs (panva's
// oidc-provider, installed by `make test`'s `npm ci` in tests/oidc) on a free loopback port, with
// the web client's public client (code flow with PKCE) and development login pages that take any
// login name. The signing key is made here, for each run.
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../../../typescript/test/support/processes.js";

/** The provider's folder: provider.mjs and its node_modules. */
const OIDC_DIR = join(repoRoot(), "tests", "oidc");

/**
 * Why the provider cannot run here, or undefined when it can (noted in $SCOPA_SKIPPED_DIR, or
 * thrown under SCOPA_REQUIRE_ALL=1, as a missing browser is).
 */
export function whyNoProvider(): string | undefined {
  if (existsSync(join(OIDC_DIR, "node_modules", "oidc-provider"))) return undefined;
  const why = "needs tests/oidc/node_modules: run `cd tests/oidc && npm ci` (make test does)";
  if (process.env["SCOPA_REQUIRE_ALL"] === "1") throw new Error(`${why} (SCOPA_REQUIRE_ALL=1 runs every test)`);
  const folder = process.env["SCOPA_SKIPPED_DIR"];
  if (folder) {
    mkdirSync(folder, { recursive: true });
    appendFileSync(join(folder, "web.txt"), `clients/web: sign-in in headless Chromium\t${why}\n`);
  }
  return why;
}

/** What the provider is started with. */
export interface ProviderConfig {
  readonly port: number;
  /** The audience of its access tokens (the server's SCOPA_OIDC_AUDIENCE). */
  readonly audience: string;
  /** The web client's id and redirect URI (the server's origin and "/"). */
  readonly clientId: string;
  readonly redirectUri: string;
  /** The web client's access token lifetime, in seconds. */
  readonly ttlS: number;
  /** Display names (the ID token's `name`) by login. */
  readonly accounts: Readonly<Record<string, string>>;
}

/** A running provider. */
export interface Provider {
  readonly process: ChildProcess;
  readonly issuer: string;
  readonly logPath: string;
}

/** Starts the provider and waits for its "ready". */
export async function startProvider(config: ProviderConfig): Promise<Provider> {
  const dir = mkdtempSync(join(tmpdir(), "scopa-web-oidc-"));
  const issuer = `http://127.0.0.1:${config.port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const key = { ...privateKey.export({ format: "jwk" }), kid: "web-key-1", alg: "RS256", use: "sig" };
  const file = join(dir, "config.json");
  writeFileSync(
    file,
    JSON.stringify({
      issuer,
      port: config.port,
      keys: [key],
      audience: config.audience,
      clients: [],
      web_clients: [{ client_id: config.clientId, redirect_uri: config.redirectUri, ttl_s: config.ttlS }],
      accounts: Object.fromEntries(Object.entries(config.accounts).map(([login, name]) => [login, { name }])),
    }),
  );
  const logPath = join(dir, "provider.log");
  const child = spawn("node", [join(OIDC_DIR, "provider.mjs"), file], {
    cwd: OIDC_DIR,
    env: { ...process.env, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.on("data", (chunk: Buffer) => appendFileSync(logPath, chunk));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the provider did not start: ${log(logPath)}`)), 30_000);
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      fail(new Error(`the provider exited: ${log(logPath)}`));
    });
  });
  return { process: child, issuer, logPath };
}

function log(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** Stops the provider. */
export async function stopProvider(provider: Provider): Promise<void> {
  const child = provider.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
