// Bundles the web client with esbuild (pinned in package.json / package-lock.json).
//
//   node build.mjs [--outdir DIR]   the app: DIR/index.html and DIR/assets/app-<hash>.{js,css}
//                                    (default ../../service/scopa/transport/webui, which the
//                                    service serves at / when SCOPA_WEB_UI is on)
//   node build.mjs --tests          the end-to-end tests into dist-test/ (for node --test)
//
// `make generate` runs the first through tools/generate_web.py, which also checks in
// `make test` that the committed bundle is what the sources build to.
import { build } from "esbuild";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const CLIENT_SRC = resolve(HERE, "../typescript/src/index.ts");

/**
 * @scopa/client is the sibling package's source; its imports of the Connect and protobuf
 * runtimes resolve to this package's node_modules, so the bundle holds one copy of each.
 */
const oneRuntime = {
  name: "one-runtime",
  setup(b) {
    b.onResolve({ filter: /^@scopa\/client$/ }, () => ({ path: CLIENT_SRC }));
    b.onResolve({ filter: /^@(bufbuild|connectrpc)\// }, (args) =>
      args.resolveDir === HERE ? undefined : b.resolve(args.path, { kind: args.kind, resolveDir: HERE }),
    );
  },
};

function argument(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function buildApp(outdir) {
  const result = await build({
    absWorkingDir: HERE,
    entryPoints: { app: "src/main.ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    entryNames: "assets/[name]-[hash]",
    outdir: "out",
    write: false,
    metafile: true,
    legalComments: "eof",
    charset: "utf8",
    plugins: [oneRuntime],
    logLevel: "warning",
  });
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, "assets"), { recursive: true });
  const urls = {};
  for (const file of result.outputFiles) {
    const name = file.path.slice(resolve(HERE, "out").length + 1);
    writeFileSync(join(outdir, name), file.contents);
    urls[name.endsWith(".js") ? "app.js" : "app.css"] = `/${name}`;
  }
  let page = readFileSync(join(HERE, "src", "index.html"), "utf8");
  for (const [key, url] of Object.entries(urls)) page = page.replace(`{{${key}}}`, url);
  if (page.includes("{{")) throw new Error("index.html names an asset the build did not make");
  writeFileSync(join(outdir, "index.html"), page);
}

async function buildTests() {
  const dir = join(HERE, "test");
  const entries = readdirSync(dir).filter((n) => n.endsWith(".test.ts")).map((n) => join("test", n));
  rmSync(join(HERE, "dist-test"), { recursive: true, force: true });
  await build({
    absWorkingDir: HERE,
    entryPoints: entries,
    bundle: true,
    format: "esm",
    platform: "node",
    target: ["node20"],
    external: ["playwright-core"],
    plugins: [oneRuntime],
    outdir: "dist-test",
    sourcemap: "inline",
    logLevel: "warning",
  });
}

if (process.argv.includes("--tests")) {
  await buildTests();
} else {
  await buildApp(resolve(argument("--outdir") ?? join(HERE, "../../service/scopa/transport/webui")));
}
