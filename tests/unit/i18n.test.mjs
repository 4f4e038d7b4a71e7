// The page's languages (www/i18n.js): which language a visit gets, `t` with and without a table,
// and the zh-CN table against the source — every `t("…")` literal in www/ and every
// `data-i18n` text or `data-i18n-attr` attribute of index.html has an entry, every entry is
// used, no key is in two parts, placeholders survive translation. Lab translations
// (www/labs/data/zh-CN/) fit their labs (lab-player.js translateLab).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { chooseLanguage, language, resolveLanguage, setLanguage, t } from "../../www/i18n.js";
import { ZH_CN as zhParts } from "../../www/i18n/zh-cn.js";
import { translateLab } from "../../www/labs/lab-player.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("language tags: Simplified Chinese in its spellings, English, nothing else", () => {
  for (const tag of ["zh", "zh-CN", "zh-cn", "zh_CN", "zh-Hans", "zh-Hans-CN", "zh-SG"]) assert.equal(resolveLanguage(tag), "zh-CN", tag);
  for (const tag of ["en", "en-US", "EN-gb"]) assert.equal(resolveLanguage(tag), "en", tag);
  for (const tag of ["zh-TW", "zh-Hant", "fr", "", "x".repeat(100), null, 42, undefined]) assert.equal(resolveLanguage(tag), null, String(tag));
});

test("which language: the URL or attribute, then the remembered one, then the browser's, then English", () => {
  assert.equal(chooseLanguage({ requested: "zh-CN", stored: "en", preferred: ["en"] }), "zh-CN");
  assert.equal(chooseLanguage({ requested: "en", stored: "zh-CN", preferred: ["zh-CN"] }), "en");
  assert.equal(chooseLanguage({ requested: "klingon", stored: "zh-CN" }), "zh-CN");
  assert.equal(chooseLanguage({ requested: null, stored: null, preferred: ["fr-FR", "zh-Hans-CN", "en"] }), "zh-CN");
  assert.equal(chooseLanguage({ preferred: ["fr", "de"] }), "en");
  assert.equal(chooseLanguage({}), "en");
});

test("t: English as written, placeholders filled; zh-CN from the table, English where it has none", async () => {
  await setLanguage("en");
  assert.equal(language(), "en");
  assert.equal(t("{n} keys in {db}", { n: 3, db: "db0" }), "3 keys in db0");
  assert.equal(t("{missing} stays", {}), "{missing} stays");
  await setLanguage("zh-CN");
  assert.equal(language(), "zh-CN");
  assert.equal(t("no such text, surely"), "no such text, surely");
  const [en, zh] = Object.entries(zhParts).find(([k]) => !k.includes("{")) ?? ["", ""];
  if (en) assert.equal(t(en), zh);
  await setLanguage("en");
  if (en) assert.equal(t(en), en);
});

/** Every .js file of www/ but the generated package and the tables. */
function sources(dir = path.join(ROOT, "www")) {
  /** @type {string[]} */
  const out = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) {
      if (!["pkg", "i18n", "types"].includes(d.name)) out.push(...sources(p));
    } else if (d.name.endsWith(".js")) out.push(p);
  }
  return out;
}

/** The keys the page asks for: `t("…")` literals in www/, data-i18n texts and attributes in index.html. */
function usedKeys() {
  /** @type {Map<string, string>} key → where */
  const used = new Map();
  /** @type {string[]} */
  const problems = [];
  for (const file of sources()) {
    const src = readFileSync(file, "utf8");
    if (!/import\s*\{[^}]*\bt\b[^}]*\}\s*from\s*"[./]*\/?i18n\.js"/.test(src)) continue;
    const rel = path.relative(ROOT, file);
    for (const m of src.matchAll(/(?<![\w.$])t\(\s*("(?:[^"\\\n]|\\.)*"|[^)\s][^,)]{0,30})/g)) {
      if (!m[1].startsWith('"')) {
        problems.push(`${rel}: t(${m[1]}…) — t takes a string literal, so the table can be checked`);
        continue;
      }
      used.set(JSON.parse(m[1]), rel);
    }
  }
  const html = readFileSync(path.join(ROOT, "index.html"), "utf8");
  for (const m of html.matchAll(/<(\w+)\b([^>]*)>([^<]*)<\/\1>/g)) {
    if (/\bdata-i18n\b(?!-)/.test(m[2])) used.set(m[3].trim().replace(/\s+/g, " "), "index.html");
  }
  for (const m of html.matchAll(/<\w+\b([^>]*\bdata-i18n-attr="([^"]*)"[^>]*)>/g)) {
    for (const name of m[2].split(/\s+/).filter(Boolean)) {
      const v = new RegExp(`\\b${name}="([^"]*)"`).exec(m[1]);
      if (v) used.set(v[1], "index.html");
      else problems.push(`index.html: data-i18n-attr names ${name}, which the element does not have`);
    }
  }
  return { used, problems };
}

test("the zh-CN table and the source agree: every text asked for has an entry, every entry is asked for", async () => {
  const { used, problems } = usedKeys();
  assert.deepEqual(problems, []);
  const missing = [...used].filter(([k]) => !Object.hasOwn(zhParts, k)).map(([k, where]) => `${where}: ${JSON.stringify(k)}`);
  assert.deepEqual(missing, [], "texts with no zh-CN entry");
  const unused = Object.keys(zhParts).filter((k) => !used.has(k));
  assert.deepEqual(unused, [], "zh-CN entries nothing uses");
});

test("the zh-CN parts: no key twice, placeholders kept, no entry left in English", async () => {
  const dir = path.join(ROOT, "www/i18n/zh-cn");
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    const mod = await import(path.join(dir, f));
    const part = Object.values(mod)[0];
    for (const [en, zh] of Object.entries(part)) {
      assert.ok(!seen.has(en), `${JSON.stringify(en)} is in ${seen.get(en)} and ${f}`);
      seen.set(en, f);
      const holes = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      assert.deepEqual(holes(zh), holes(en), `${f}: ${JSON.stringify(en)} → ${JSON.stringify(zh)} changes its placeholders`);
      assert.equal(typeof zh, "string");
      assert.ok(zh.trim() !== "", `${f}: ${JSON.stringify(en)} is empty`);
    }
  }
  assert.equal(seen.size, Object.keys(zhParts).length, "www/i18n/zh-cn.js gathers every part");
});

const LABS = path.join(ROOT, "www/labs/data");
const CJK = /[\u4e00-\u9fff]/;

test("each lab translation fits its lab: same id, as many steps, notices and claims, all in Chinese", () => {
  const dir = path.join(LABS, "zh-CN");
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const lab = JSON.parse(readFileSync(path.join(LABS, f), "utf8"));
    const tr = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
    const r = translateLab(lab, tr);
    assert.ok(r.ok, `zh-CN/${f}: ${r.ok ? "" : r.error}`);
    if (!r.ok) continue;
    assert.match(r.lab.title, CJK, `zh-CN/${f}: title`);
    assert.match(String(r.lab.summary), CJK, `zh-CN/${f}: summary`);
    for (const [i, step] of r.lab.steps.entries()) {
      for (const field of ["title", "text", "notice"]) {
        if (step[field] !== undefined) assert.match(step[field], CJK, `zh-CN/${f} step ${i + 1} ${field}`);
      }
      for (const c of step.claims ?? []) {
        assert.match(c.says, CJK, `zh-CN/${f} step ${i + 1} claim`);
        assert.match(c.does, CJK, `zh-CN/${f} step ${i + 1} claim`);
      }
    }
  }
});

test("translateLab refuses a translation that does not fit, and keeps the lab's lines", () => {
  const lab = { id: "x", title: "T", seed: 1, startMs: 0, steps: [{ title: "a", text: "b", notice: "n", lines: [{ line: "PING", expect: "PONG" }] }] };
  assert.equal(translateLab(lab, { id: "y", title: "标题", steps: [{ title: "甲", text: "乙", notice: "丙" }] }).ok, false);
  assert.equal(translateLab(lab, { id: "x", title: "标题", steps: [] }).ok, false);
  assert.equal(translateLab(lab, { id: "x", title: "标题", steps: [{ title: "甲", text: "乙" }] }).ok, false, "a notice untranslated");
  const r = translateLab(lab, { id: "x", title: "标题", summary: "概要", steps: [{ title: "甲", text: "乙", notice: "丙", lines: [{ line: "FLUSHALL" }] }] });
  assert.ok(r.ok);
  if (r.ok) {
    assert.equal(r.lab.title, "标题");
    assert.deepEqual(r.lab.steps[0].lines, [{ line: "PING", expect: "PONG" }], "lines are the lab's own");
    assert.equal(r.lab.steps[0].notice, "丙");
  }
});
