// What a wasm's bytes are, by part, raw and as brotli: each function's body classed by its name
// (Lua, the engine, std, the glue, the labs, num-bigint), the data section, the whole file. Needs
// a name section: build one as docs/wasm-size.md says (wasm-bindgen --keep-debug, wasm-opt -g).
// brotli of a part alone is an estimate of its share of the wire (the parts compress together).
//
//   node tools/wasm-parts.mjs /tmp/redisplay-names.wasm
import fs from "node:fs";
import { brotliCompressSync, constants as zc } from "node:zlib";
const b = fs.readFileSync(process.argv[2]);
let p = 8;
const leb = () => { let r = 0, s = 0, x; do { x = b[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80); return r; };
let importedFuncs = 0; const bodies = []; const names = new Map(); let dataBytes = null;
while (p < b.length) {
  const id = b[p++]; const len = leb(); const end = p + len;
  if (id === 2) { const n = leb(); for (let i = 0; i < n; i++) { let l = leb(); p += l; l = leb(); p += l; const kind = b[p++];
      if (kind === 0) { leb(); importedFuncs++; } else if (kind === 1) { p++; const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 2) { const f = leb(); leb(); if (f & 1) leb(); } else if (kind === 3) { p += 2; } else if (kind === 4) { p++; leb(); } } }
  if (id === 10) { const n = leb(); for (let i = 0; i < n; i++) { const l = leb(); bodies.push(b.subarray(p, p + l)); p += l; } }
  if (id === 11) dataBytes = b.subarray(p, end);
  if (id === 0) { const nl = leb(); const nm = b.subarray(p, p + nl).toString(); p += nl;
    if (nm === "name") while (p < end) { const sid = b[p++]; const sl = leb(); const se = p + sl;
      if (sid === 1) { const n = leb(); for (let i = 0; i < n; i++) { const idx = leb(); const l = leb(); names.set(idx, b.subarray(p, p + l).toString()); p += l; } }
      p = se; } }
  p = end;
}
const classify = (n = "") => {
  if (/^(lua_[a-z]+|omnilua)::|<(lua_[a-z]+|omnilua)::/.test(n) || /redisplay::script::/.test(n)) return "Lua (lua_* crates, omnilua, redisplay::script)";
  if (/redisplay::sim::|[Ll]ab|delayqueue/.test(n)) return "labs/sims (redisplay::sim, lab exports)";
  if (/num_bigint/.test(n)) return "num_bigint";
  if (/shim/.test(n) || /^__wbg|wbindgen|serde_wasm_bindgen|js_sys|wasm_bindgen/.test(n)) return "wasm-bindgen glue + exports";
  if (/redisplay::/.test(n)) return "redisplay (engine, commands)";
  if (/^<?(core|alloc|std|hashbrown|indexmap|compiler_builtins|dlmalloc)/.test(n) || /^<?&?(core|alloc|std)/.test(n)) return "std/core/alloc/hashbrown/indexmap";
  return "other";
};
const groups = new Map();
bodies.forEach((body, i) => { const c = classify(names.get(i + importedFuncs)); if (!groups.has(c)) groups.set(c, []); groups.get(c).push(body); });
const br = (buf) => brotliCompressSync(buf, { params: { [zc.BROTLI_PARAM_QUALITY]: 11, [zc.BROTLI_PARAM_LGWIN]: 24 } }).length;
const all = Buffer.concat(bodies);
console.log(`| part | raw | brotli alone |`); console.log(`|---|---:|---:|`);
for (const [c, list] of [...groups].sort((x, y) => Buffer.concat(y[1]).length - Buffer.concat(x[1]).length)) {
  const cat = Buffer.concat(list); console.log(`| ${c} (${list.length} functions) | ${cat.length} | ${br(cat)} |`);
}
console.log(`| all code | ${all.length} | ${br(all)} |`);
if (dataBytes) console.log(`| data section | ${dataBytes.length} | ${br(dataBytes)} |`);
console.log(`| whole file | ${b.length} | ${br(b)} |`);
