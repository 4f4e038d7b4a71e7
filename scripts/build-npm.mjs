// Builds dist/npm/: redisplay as an npm package (not published; `npm pack` in it makes the
// tarball). Run by scripts/build-npm.sh.
//
//   import init, { Playground } from "redisplay";          // the engine (wasm-bindgen API + types)
//   import "redisplay/widget";                             // defines <redis-playground>
//
// The package is the browser files as they are served — www/ with the wasm package in
// www/pkg/ — so the widget finds its style sheets, labs and engine next to itself, with or
// without a bundler. Types: the wasm-bindgen .d.ts for the engine, www/widget.d.ts
// (hand-written) for the element.

import { readFileSync, writeFileSync, mkdirSync, rmSync, copyFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { moduleGraph } from "./module-graph.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "dist", "npm");

function fail(message) {
  console.error(`build-npm: ${message}`);
  process.exit(1);
}

// size.json: the wasm's size, for the loading bar (engine.js).
const PKG_FILES = ["redisplay.js", "redisplay.d.ts", "redisplay_bg.wasm", "redisplay_bg.wasm.d.ts", "size.json"];
for (const f of PKG_FILES) {
  if (!existsSync(path.join(ROOT, "www/pkg", f))) fail(`www/pkg/${f} is missing: run ./scripts/build-web.sh first`);
}

function cargoField(name) {
  const m = readFileSync(path.join(ROOT, "Cargo.toml"), "utf8").match(new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m"));
  return m ? m[1] : null;
}

function copy(rel, to = rel) {
  const dest = path.join(OUT, to);
  mkdirSync(path.dirname(dest), { recursive: true });
  copyFileSync(path.join(ROOT, rel), dest);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

// The widget's modules (engine.js among them) and what they load at run time.
let graph;
try {
  graph = moduleGraph(ROOT, ["www/widget.js", "www/engine.js", "www/playground.js"]);
} catch (err) {
  fail(err.message);
}
for (const rel of graph.order) copy(rel);
for (const f of PKG_FILES) copy(`www/pkg/${f}`);
for (const css of ["www/style.css", "www/eviction.css", "www/widget.css", "www/labs/lab.css"]) {
  if (existsSync(path.join(ROOT, css))) copy(css);
}
const labs = readdirSync(path.join(ROOT, "www/labs/data")).filter((f) => f.endsWith(".json"));
for (const f of labs) copy(`www/labs/data/${f}`);
// Translations: www/labs/data/<lang>/<id>.json (lab-player.js loadLab).
for (const d of readdirSync(path.join(ROOT, "www/labs/data"), { withFileTypes: true })) {
  if (!d.isDirectory()) continue;
  for (const f of readdirSync(path.join(ROOT, "www/labs/data", d.name)).filter((f) => f.endsWith(".json"))) copy(`www/labs/data/${d.name}/${f}`);
}
copy("www/widget.d.ts");

const version = cargoField("version") ?? "0.0.0";
const manifest = {
  name: "redisplay",
  version,
  description: `${cargoField("description") ?? "A Redis 7.0 playground"}: the engine (WebAssembly) and the <redis-playground> element`,
  license: cargoField("license") ?? "UNLICENSED",
  type: "module",
  main: "./www/pkg/redisplay.js",
  types: "./www/pkg/redisplay.d.ts",
  exports: {
    ".": { types: "./www/pkg/redisplay.d.ts", default: "./www/pkg/redisplay.js" },
    "./widget": { types: "./www/widget.d.ts", default: "./www/widget.js" },
    "./redisplay_bg.wasm": "./www/pkg/redisplay_bg.wasm",
    "./style.css": "./www/style.css",
    "./widget.css": "./www/widget.css",
    "./labs/*": "./www/labs/data/*",
    "./package.json": "./package.json",
  },
  files: ["www/", "README.md"],
  sideEffects: ["./www/widget.js"],
  keywords: ["redis", "playground", "webassembly", "web-component", "tutorial"],
  browser: true,
};
writeFileSync(path.join(OUT, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

writeFileSync(
  path.join(OUT, "README.md"),
  `# redisplay ${version}

A Redis 7.0 playground that runs entirely in the browser: an engine that answers exactly as
redis-cli prints against redis-server 7.0, on a virtual clock you control.

## The element

\`\`\`html
<script type="module" src="node_modules/redisplay/www/widget.js"></script>
<redis-playground views="console zset" seed="7" autorun commands="ZADD board 100 alice 85 bob; ZRANGE board 0 -1 WITHSCORES"></redis-playground>
\`\`\`

or \`import "redisplay/widget";\` from a bundled app (serve the package's \`www/\` folder as it
is: the widget loads its style sheets, labs and \`pkg/redisplay_bg.wasm\` next to itself).
Attributes: \`commands\` (or a child \`<pre>\`), \`views\`, \`seed\`, \`start\`, \`autorun\`,
\`read-only\`, \`paused\`, \`height\`, \`lab\`, \`label\`; theming with \`--rp-bg\`, \`--rp-fg\`,
\`--rp-accent\`, \`--rp-font\` and more (see \`www/widget.d.ts\` and \`www/widget.css\`).

## The engine

\`\`\`js
import init, { Playground } from "redisplay";
await init();
const pg = new Playground(42, Date.UTC(2025, 0, 1));   // seed, start time
pg.execute("SET order:1 pending EX 1800").text;         // "OK\\n", as redis-cli prints it
pg.advance_to(pg.now() + 1_800_001);                    // serverCron runs for each tick
pg.execute("GET order:1").reply;                        // {type: "nil"}
\`\`\`
`,
);

console.log(`build-npm: ${path.relative(ROOT, OUT)}/ — ${graph.order.length} modules, ${labs.length} lab files, version ${version}`);
