// A real OpenID Connect provider for the signed-in tests: tests/oidc/provider.mjs (panva's
// oidc-provider, installed by `make ts-test` into tests/oidc/node_modules) on a free port, with
// one RSA key made here; a client's client_credentials tokens are JWTs whose `sub` is its id.
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort, repoRoot } from "./processes.js";

export const AUDIENCE = "https://scopa.test/api";
const SECRET = "a-typescript-test-client-secret-0123456789";

/** A running provider: its issuer URL, a token endpoint, and the process to stop. */
export interface Oidc {
  readonly issuer: string;
  readonly process: ChildProcess;
  /** A fresh JWT access token of `clientId` (one request to the token endpoint). */
  token(clientId: string): Promise<string>;
}

/** Where the provider's script and its node_modules live (undefined: not installed). */
export function oidcDir(): string | undefined {
  const dir = join(repoRoot(), "tests", "oidc");
  return existsSync(join(dir, "node_modules", "oidc-provider")) ? dir : undefined;
}

/** Starts the provider for `clients` (client ids) and waits until it prints "ready". */
export async function startOidc(clients: readonly string[]): Promise<Oidc> {
  const dir = oidcDir();
  if (dir === undefined) throw new Error("tests/oidc/node_modules is missing: run `make ts-test`");
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const key = { ...privateKey.export({ format: "jwk" }), kid: randomUUID(), use: "sig", alg: "RS256" };
  const config = {
    issuer,
    port,
    keys: [key],
    audience: AUDIENCE,
    clients: clients.map((id) => ({ client_id: id, client_secret: SECRET, ttl_s: 300 })),
  };
  const path = join(mkdtempSync(join(tmpdir(), "scopa-ts-oidc-")), "config.json");
  writeFileSync(path, JSON.stringify(config));
  const child = spawn("node", [join(dir, "provider.mjs"), path], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((ok) => {
    lines.once("line", ok);
    child.once("exit", () => ok(""));
  });
  if (first.trim() !== "ready") throw new Error("the OIDC provider did not start");
  return {
    issuer,
    process: child,
    async token(clientId: string): Promise<string> {
      const body = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: SECRET });
      const response = await fetch(`${issuer}/token`, { method: "POST", body });
      if (!response.ok) throw new Error(`token endpoint: HTTP ${response.status}`);
      const json = (await response.json()) as { access_token: string };
      return json.access_token;
    },
  };
}
