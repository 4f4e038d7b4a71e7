// The <link rel="modulepreload"> list in index.html: every module www/main.js imports statically
// (the module graph without `import()`: the first screen) and the engine's glue, so a browser asks for all of them at once instead of finding
// them one import level (one round trip) at a time. On a 3G link that is seconds. What the page
// imports on demand — a view's modules when its panel is first shown (playground.js), the lab
// player, the zh-CN tables (i18n.js setLanguage) — is not listed: a first screen without them
// does not fetch them.
//
//   node scripts/preload-list.mjs           rewrites the list in index.html
//   node scripts/preload-list.mjs --check   exits 1 when the list is out of date (a unit test runs it)

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { moduleGraph } from "./module-graph.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START = "<!-- modulepreload: scripts/preload-list.mjs writes this list -->";
const END = "<!-- /modulepreload -->";

/** The list as index.html should have it. */
export function preloadBlock() {
  const { order } = moduleGraph(ROOT, ["www/main.js"], { dynamic: false });
  const modules = [...order.filter((m) => m !== "www/main.js"), "www/pkg/redisplay.js"];
  return [START, ...modules.map((m) => `  <link rel="modulepreload" href="${m}">`), `  ${END}`].join("\n");
}

/** index.html with its list replaced by the current one. */
export function withCurrentList(html) {
  const a = html.indexOf(START);
  const b = html.indexOf(END);
  if (a < 0 || b < a) throw new Error(`index.html has no ${START} … ${END} block`);
  return html.slice(0, a) + preloadBlock() + html.slice(b + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = path.join(ROOT, "index.html");
  const html = readFileSync(file, "utf8");
  const next = withCurrentList(html);
  if (process.argv.includes("--check")) {
    if (next !== html) {
      console.error("index.html's modulepreload list is out of date: run node scripts/preload-list.mjs");
      process.exit(1);
    }
  } else if (next !== html) {
    writeFileSync(file, next);
    console.log("index.html: modulepreload list updated");
  }
}
