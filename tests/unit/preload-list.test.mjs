// index.html's <link rel="modulepreload"> list names every module the page's entry needs (so a
// browser fetches them at once, not one import level per round trip): it must follow the code.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { withCurrentList } from "../../scripts/preload-list.mjs";

test("index.html's modulepreload list is the module graph of www/main.js (node scripts/preload-list.mjs rewrites it)", () => {
  const html = readFileSync(new URL("../../index.html", import.meta.url), "utf8");
  assert.equal(withCurrentList(html), html);
  assert.match(html, /<link rel="modulepreload" href="www\/engine\.js">/);
  assert.match(html, /<link rel="modulepreload" href="www\/pkg\/redisplay\.js">/);
});
