// The ES modules a page needs, found from its entry modules by their relative import
// specifiers (`import … from "./x.js"`, `export … from`, `import "./x.js"`, `import("./x.js")`
// with a literal path). Used by build-single.mjs (to inline them) and build-npm.mjs (to ship
// them). Paths are relative to the repository root, with forward slashes.
//
// `{dynamic: false}` follows static imports only: what a page loads before its first line runs
// (the first screen: tools/first-load-size.mjs, scripts/preload-list.mjs), not what it imports
// later on demand (a view opened later, another language's tables).
//
// Only specifiers ending in `.js` or `.mjs` are followed — the only ones a browser loads. Type
// imports in JSDoc (`@typedef {import("./types/events").Event} Event`) name their module without
// an extension, as TypeScript allows, so they are not taken for dependencies.

import { readFileSync, existsSync } from "node:fs";
import path from "node:path";

export const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]+\.m?js)\2/g;

/**
 * Walks the graph from `entries`: `{order, sources, deps}` with `order` listing each module after
 * its dependencies (with `dynamic: false`, static imports only). `load(rel)` may stand in for a module's source; a cycle or a missing module
 * throws an Error naming it.
 */
export function moduleGraph(root, entries, { load = null, dynamic = true } = {}) {
  const order = [];
  const sources = {};
  const deps = {};
  const state = {};
  function visit(rel, from) {
    if (state[rel] === "done") return;
    if (state[rel] === "visiting") throw new Error(`an import cycle through ${rel} (from ${from})`);
    const substitute = load?.(rel) ?? null;
    if (substitute === null && !existsSync(path.join(root, rel))) throw new Error(`${from} imports ${rel}, which does not exist`);
    state[rel] = "visiting";
    const source = substitute ?? readFileSync(path.join(root, rel), "utf8");
    sources[rel] = source;
    deps[rel] = [];
    if (substitute === null) {
      // Comments (a JSDoc `import("./x.js")` type, a commented-out line) are not imports.
      const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      for (const m of code.matchAll(SPECIFIER)) {
        if (!dynamic && m[1].startsWith("import") && m[1].includes("(")) continue;
        deps[rel].push(path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[3])));
      }
    }
    for (const dep of deps[rel]) visit(dep, rel);
    order.push(rel);
    state[rel] = "done";
  }
  for (const entry of entries) visit(entry, "the entry list");
  return { order, sources, deps };
}
