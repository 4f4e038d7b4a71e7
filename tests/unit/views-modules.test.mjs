// The view modules as modules: every pure one (models, forms, words) loads in node with no
// `document` or `window`, and the build's module graph (scripts/module-graph.mjs, which also
// counts type imports in JSDoc comments as edges) reaches every view module without a cycle or a
// missing file — the single-file build and the npm package depend on it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { moduleGraph } from "../../scripts/module-graph.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const VIEWS = readdirSync(path.join(ROOT, "www/views")).filter((f) => f.endsWith(".js"));

/** The pure modules: no DOM, no engine. */
const PURE = VIEWS.filter((f) => /-(model|forms|history|report|cycle|search-path)\.js$|^engine-types\.js$|-table-model\.js$/.test(f));

test("the pure view modules load without a DOM", async () => {
  assert.equal(typeof document, "undefined");
  assert.equal(typeof window, "undefined");
  assert.ok(PURE.length >= 15, `only ${PURE.length} pure modules found: ${PURE.join(", ")}`);
  for (const f of PURE) {
    const m = await import(path.join(ROOT, "www/views", f));
    assert.equal(typeof m, "object", f);
  }
});

test("every view has a model module", () => {
  for (const view of ["zset", "expiry", "eviction", "delay-queue", "clock", "keyspace"]) {
    assert.ok(VIEWS.includes(`${view}-model.js`), `${view}-model.js`);
    assert.ok(VIEWS.includes(`${view}-view.js`), `${view}-view.js`);
  }
});

test("the build's module graph reaches every view module, without cycles or missing files", () => {
  const load = (rel) => (rel === "www/assets.js" ? "" : null);
  const page = moduleGraph(ROOT, ["www/main.js", "www/widget.js"], { load });
  for (const f of VIEWS) {
    assert.doesNotThrow(() => moduleGraph(ROOT, [`www/views/${f}`], { load }), f);
  }
  for (const view of ["zset", "expiry", "eviction", "delay-queue", "clock", "keyspace"]) {
    assert.ok(page.order.includes(`www/views/${view}-view.js`), view);
  }
});
