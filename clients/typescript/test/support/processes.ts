// Real processes for the tests: a throwaway redis-server and `python -m scopa.server`,
// each on a free loopback port (never Redis' 6379), always stopped by the caller.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const HOST = "127.0.0.1";
const REDIS_DEFAULT_PORT = 6379;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const started = new Set<ChildProcess>();

// A last resort if a test run dies without its after() hooks: never leave processes behind.
function killStarted(): void {
  for (const child of started) child.kill("SIGKILL");
}
process.on("exit", killStarted);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killStarted();
    process.exit(1);
  });
}

/** A running child process, where it listens and where its output goes. */
export interface Running {
  readonly process: ChildProcess;
  readonly port: number;
  readonly logPath: string;
}

/** The repository root: the nearest parent holding pyproject.toml and service/. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, "pyproject.toml")) && existsSync(join(dir, "service")))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("repository root not found above " + import.meta.url);
    dir = parent;
  }
  return dir;
}

/** A TCP port on the loopback address that is free right now, never 6379. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((ok, fail) => {
      const server = createServer();
      server.once("error", fail);
      server.listen(0, HOST, () => {
        const address = server.address();
        const found = typeof address === "object" && address !== null ? address.port : 0;
        server.close(() => ok(found));
      });
    });
    if (port !== REDIS_DEFAULT_PORT && port !== 0) return port;
  }
}

function launch(command: string, args: string[], env: NodeJS.ProcessEnv, logPath: string): ChildProcess {
  const log = openSync(logPath, "a");
  const child = spawn(command, args, { env, stdio: ["ignore", log, log] });
  closeSync(log);
  started.add(child);
  child.once("exit", () => started.delete(child));
  return child;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = createConnection({ host: HOST, port }, () => socket.write("PING\r\n"));
    socket.setTimeout(500, () => socket.destroy());
    socket.once("data", (data) => {
      ok(data.toString().startsWith("+PONG"));
      socket.destroy();
    });
    socket.once("error", () => ok(false));
    socket.once("close", () => ok(false));
  });
}

/** Polls `ready` until it resolves true; fails if the process exits or time runs out. */
export async function waitUntil(running: Running, ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (running.process.exitCode !== null || running.process.signalCode !== null) break;
    if (await ready()) return;
    await sleep(50);
  }
  await stop(running);
  throw new Error(`${what} did not start:\n${readFileSync(running.logPath, "utf8")}`);
}

/** Starts a non-persistent redis-server on a free port and waits for PONG. */
export async function startRedis(): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), "scopa-ts-redis-"));
  const port = await freePort();
  const logPath = join(dir, "redis.log");
  const args = ["--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", dir];
  const running = { process: launch("redis-server", args, process.env, logPath), port, logPath };
  await waitUntil(running, () => answersPing(port), "redis-server");
  return running;
}

/** Where a scopa server listens: its gRPC port and its HTTP (Connect, gRPC-Web) port. */
export interface ScopaServer extends Running {
  readonly httpPort: number;
  readonly grpcUrl: string;
  readonly httpUrl: string;
}

/** The interpreter of the repository's virtualenv (made by `make test`), or $SCOPA_PYTHON. */
export function python(): string {
  return process.env["SCOPA_PYTHON"] ?? resolve(repoRoot(), ".venv", "bin", "python");
}

/**
 * Starts `python -m scopa.server` on free gRPC and HTTP ports against Redis at
 * `redisPort`; `ready` (given the server) tells when it answers. `settings` adds
 * SCOPA_* variables (the web client's tests turn SCOPA_WEB_UI on).
 */
export async function startScopaServer(
  redisPort: number,
  ready: (server: ScopaServer) => Promise<boolean>,
  settings: Readonly<Record<string, string>> = {},
): Promise<ScopaServer> {
  const port = await freePort();
  const httpPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "scopa-ts-server-"));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(SCOPA_|OTEL_|REDIS_)/.test(key)) env[key] = value;
  }
  Object.assign(env, {
    REDIS_URL: `redis://${HOST}:${redisPort}/0`,
    SCOPA_HOST: HOST,
    SCOPA_PORT: String(port),
    SCOPA_HTTP_PORT: String(httpPort),
    SCOPA_LOG_FORMAT: "json",
    SCOPA_GRACE_S: "1",
    SCOPA_DRAIN_DELAY_S: "0",
    SCOPA_TOKEN_SECRET: "typescript-client-test-secret-0123456789",
    SCOPA_ARCHIVE_URL: `sqlite:///${join(dir, "archive.db")}`,
    ...settings,
  });
  const logPath = join(dir, "server.log");
  const child = launch(python(), ["-m", "scopa.server"], env, logPath);
  const server: ScopaServer = {
    process: child,
    port,
    httpPort,
    logPath,
    grpcUrl: `http://${HOST}:${port}`,
    httpUrl: `http://${HOST}:${httpPort}`,
  };
  await waitUntil(server, () => ready(server), "scopa server");
  return server;
}

/** SIGTERMs the process and waits for it to exit (SIGKILL after a timeout). */
export async function stop(running: Running): Promise<void> {
  const child = running.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
