// <redis-playground>'s attributes (www/widget-attributes.js): commands split as redis-cli
// quotes them, views, heights, the whole config with its problems, a lab taking over.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  applyLab,
  DEFAULT_SEED,
  DEFAULT_START_MS,
  MAX_COMMANDS,
  MAX_LINE,
  parseHeight,
  parseViews,
  readWidgetConfig,
  splitCommands,
  widgetLabel,
} from "../../www/widget-attributes.js";

/** An attribute reader over a plain object (absent → null, as getAttribute). */
const attrs = (o) => (name) => (Object.hasOwn(o, name) ? o[name] : null);
const supportsRem = (v) => /^\d+(\.\d+)?(rem|em|vh|%)$/.test(v);

test("splitCommands: newlines and semicolons split, quoted semicolons stay, comments and blanks go", () => {
  assert.deepEqual(splitCommands("SET a 1; GET a\n\n# a comment\n  INCR n  "), ["SET a 1", "GET a", "INCR n"]);
  assert.deepEqual(splitCommands('SET k "a;b"; GET k'), ['SET k "a;b"', "GET k"]);
  assert.deepEqual(splitCommands("SET k 'x;y'"), ["SET k 'x;y'"]);
  // A backslash escapes a quote inside double quotes, as in redis-cli.
  assert.deepEqual(splitCommands('SET k "say \\";\\" ok"; GET k'), ['SET k "say \\";\\" ok"', "GET k"]);
  // An unclosed quote ends at the newline: the next line is a line of its own.
  assert.deepEqual(splitCommands('SET k "open\nGET k'), ['SET k "open', "GET k"]);
  assert.deepEqual(splitCommands("a\r\nb\rc"), ["a", "b", "c"]);
});

test("splitCommands: without semicolons (a <pre>), a `;` is part of the line", () => {
  assert.deepEqual(splitCommands("EVAL 'return 1;' 0\nGET a", { semicolons: false }), ["EVAL 'return 1;' 0", "GET a"]);
});

test("splitCommands: nothing in, nothing out", () => {
  assert.deepEqual(splitCommands(null), []);
  assert.deepEqual(splitCommands(undefined), []);
  assert.deepEqual(splitCommands(" ;; \n"), []);
});

test("parseViews: known views once each, in the order given; the rest reported once", () => {
  assert.deepEqual(parseViews("Console, ZSET zset expiry"), { views: ["console", "zset", "expiry"], unknown: [] });
  assert.deepEqual(parseViews("zset graph graph"), { views: ["zset"], unknown: ["graph"] });
  assert.deepEqual(parseViews(""), { views: [], unknown: [] });
});

test("parseHeight: bare numbers are px, CSS lengths pass when the browser takes them, nothing else", () => {
  assert.equal(parseHeight("420", supportsRem), "420px");
  assert.equal(parseHeight(" 30rem ", supportsRem), "30rem");
  assert.equal(parseHeight("auto", () => true), null);
  assert.equal(parseHeight("10px;color:red", () => true), null);
  assert.equal(parseHeight("url(x)", () => true), null);
  assert.equal(parseHeight("30parsecs", supportsRem), null);
  assert.equal(parseHeight(null, supportsRem), null);
  // Without a CSS object (node), only bare numbers.
  assert.equal(parseHeight("30rem"), null);
});

test("readWidgetConfig: no attributes → the defaults, the console only, no problems", () => {
  const { config, problems } = readWidgetConfig(attrs({}), null);
  assert.deepEqual(problems, []);
  assert.equal(config.seed, DEFAULT_SEED);
  assert.equal(config.startMs, DEFAULT_START_MS);
  assert.equal(config.startMs, Date.parse("2025-01-01T00:00:00Z"));
  assert.deepEqual(config.views, ["console"]);
  assert.deepEqual(config.commands, []);
  assert.equal(config.label, "Redis playground");
  assert.equal(config.autorun, false);
  assert.equal(config.readOnly, false);
});

test("readWidgetConfig: good values are taken; any view but the console brings the clock", () => {
  const { config, problems } = readWidgetConfig(
    attrs({ seed: "7", start: "2025-01-01T12:00:00Z", views: "zset", autorun: "", readonly: "", height: "300", label: "  Board  " }),
    null,
    { supports: supportsRem },
  );
  assert.deepEqual(problems, []);
  assert.equal(config.seed, 7);
  assert.equal(config.startMs, Date.parse("2025-01-01T12:00:00Z"));
  assert.deepEqual(config.views, ["console", "clock", "zset"]);
  assert.equal(config.autorun, true);
  assert.equal(config.readOnly, true);
  assert.equal(config.height, "300px");
  assert.equal(config.label, "Board");
  assert.ok(config.seedGiven && config.startGiven && config.viewsGiven);
});

test("readWidgetConfig: bad values become sentences and the defaults stay; nothing throws", () => {
  const { config, problems } = readWidgetConfig(
    attrs({ seed: "-1", start: "yesterday", views: "console graph", height: "huge", lab: "../etc/passwd" }),
    null,
  );
  assert.equal(config.seed, DEFAULT_SEED);
  assert.equal(config.startMs, DEFAULT_START_MS);
  assert.deepEqual(config.views, ["console"]);
  assert.equal(config.height, null);
  assert.equal(config.lab, null);
  assert.equal(problems.length, 5);
  assert.match(problems[0], /^seed="-1" is not a seed/);
  assert.match(problems[1], /^start="yesterday" is not a time.*2025-01-01T00:00:00\.000Z/);
  assert.match(problems[2], /"graph" is not a view/);
  assert.match(problems[3], /^height="huge" is not a CSS length/);
  assert.match(problems[4], /is not a lab name/);
});

test("readWidgetConfig: a long bad value is quoted cut, not whole", () => {
  const { problems } = readWidgetConfig(attrs({ seed: "x".repeat(500) }), null);
  assert.match(problems[0], /^seed="x{40}…" is not a seed/);
});

test("readWidgetConfig: the commands attribute wins over the <pre>, which splits only at newlines", () => {
  assert.deepEqual(readWidgetConfig(attrs({ commands: "SET a 1; GET a" }), "PING").config.commands, ["SET a 1", "GET a"]);
  assert.deepEqual(readWidgetConfig(attrs({}), "SET a 1; GET a\nPING").config.commands, ["SET a 1; GET a", "PING"]);
});

test("readWidgetConfig: too many or too long commands are cut, and said so", () => {
  const many = Array.from({ length: MAX_COMMANDS + 5 }, (_, i) => `SET k${i} v`).join("\n");
  const r = readWidgetConfig(attrs({ commands: many }), null);
  assert.equal(r.config.commands.length, MAX_COMMANDS);
  assert.match(r.problems[0], new RegExp(`first ${MAX_COMMANDS} of the ${MAX_COMMANDS + 5} commands`));
  const long = readWidgetConfig(attrs({ commands: `SET k ${"v".repeat(MAX_LINE + 10)}` }), null);
  assert.equal(long.config.commands[0].length, MAX_LINE);
  assert.match(long.problems[0], /longer than 10,000 characters are cut/);
});

test("readWidgetConfig: a lab's widget ignores its commands attribute and its <pre>", () => {
  const withAttr = readWidgetConfig(attrs({ lab: "leaderboard", commands: "PING" }), null);
  assert.equal(withAttr.config.lab, "leaderboard");
  assert.deepEqual(withAttr.config.commands, []);
  assert.match(withAttr.problems[0], /plays a lab: its commands attribute is not used/);
  assert.deepEqual(readWidgetConfig(attrs({ lab: "leaderboard" }), "PING").config.commands, []);
});

test("applyLab: the lab's seed, start and views, a paused clock; given views stay", () => {
  const lab = { seed: 42, startMs: 1_700_000_000_000, views: ["expiry", "nonsense"] };
  const a = readWidgetConfig(attrs({ lab: "x" }), null);
  applyLab(a.config, lab, a.problems);
  assert.equal(a.config.seed, 42);
  assert.equal(a.config.startMs, 1_700_000_000_000);
  assert.equal(a.config.paused, true);
  assert.deepEqual(a.config.views, ["console", "clock", "expiry"]);
  assert.deepEqual(a.problems, []);

  const b = readWidgetConfig(attrs({ lab: "x", views: "zset", seed: "3" }), null);
  applyLab(b.config, lab, b.problems);
  assert.deepEqual(b.config.views, ["console", "clock", "zset"]);
  assert.equal(b.config.seed, 42);
  assert.match(b.problems[0], /the lab's own seed and start time are used/);
});

test("widgetLabel: trimmed, at most 200 characters, or the default", () => {
  assert.equal(widgetLabel(null), "Redis playground");
  assert.equal(widgetLabel("   "), "Redis playground");
  assert.equal(widgetLabel("x".repeat(300)).length, 200);
});
