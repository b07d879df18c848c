// The package's metadata: its version follows the API version, as the Python client's does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "./support/processes.js";

describe("package.json", () => {
  it("has the Python client's version (both follow the API version)", () => {
    const root = repoRoot();
    const pkg = JSON.parse(readFileSync(join(root, "clients", "typescript", "package.json"), "utf8")) as {
      version: string;
    };
    const pyproject = readFileSync(join(root, "clients", "python", "pyproject.toml"), "utf8");
    const python = /^version\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
    assert.ok(python !== undefined, "clients/python/pyproject.toml has a version");
    assert.equal(pkg.version, python);
  });
});
