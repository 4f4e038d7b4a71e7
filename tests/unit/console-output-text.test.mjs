// From redis-cli's terminal text to what the console shows (www/console/output-text.js).

import assert from "node:assert/strict";
import { test } from "node:test";
import { announcement, capOutput, normalizeNewlines, parseSgr, visibleText } from "../../www/console/output-text.js";

test("line ends as a terminal shows them: CRLF → LF, a lone CR is dropped", () => {
  assert.equal(normalizeNewlines("a\r\nb\rc\n"), "a\nbc\n");
});

test("SGR codes become styled segments, as `help GET` prints them", () => {
  const help = "\r\n  \x1b[1mGET\x1b[0m key\r\n  \x1b[33msummary:\x1b[0m Get the value\r\n  \x1b[90msince: 1.0.0\x1b[0m\r\n";
  assert.deepEqual(parseSgr(normalizeNewlines(help)), [
    { text: "\n  ", bold: false, color: null },
    { text: "GET", bold: true, color: null },
    { text: " key\n  ", bold: false, color: null },
    { text: "summary:", bold: false, color: "yellow" },
    { text: " Get the value\n  ", bold: false, color: null },
    { text: "since: 1.0.0", bold: false, color: "grey" },
    { text: "\n", bold: false, color: null },
  ]);
  assert.deepEqual(parseSgr("\x1b[1;33mboth\x1b[22mcolour\x1b[39mplain"), [
    { text: "both", bold: true, color: "yellow" },
    { text: "colour", bold: false, color: "yellow" },
    { text: "plain", bold: false, color: null },
  ]);
});

test("other escapes and control characters are dropped; tabs and newlines stay", () => {
  assert.equal(visibleText("\x1b[H\x1b[2J"), "", "clear");
  assert.equal(visibleText("a\x07b\x00c\td\x7f\n"), "abc\td\n");
  assert.equal(visibleText("\x1bMup"), "up", "ESC and one character (7-bit C1: @ to _)");
  // Quoted user data, as redis-cli prints it, is left alone.
  assert.equal(visibleText('"\\x1b[31m"'), '"\\x1b[31m"');
});

test("long output is cut at whole lines, then at characters, and says how much was hidden", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n");
  assert.deepEqual(capOutput(lines, 3, 1000), { text: "line 0\nline 1\nline 2\n", hiddenLines: 7, hiddenChars: 0 });
  assert.deepEqual(capOutput("abcdef\n", 10, 4), { text: "abcd", hiddenLines: 0, hiddenChars: 3 });
  assert.deepEqual(capOutput("a\nb\n", 2, 100), { text: "a\nb\n", hiddenLines: 0, hiddenChars: 0 });
  assert.deepEqual(capOutput("a\nb\nc\n", 2, 100), { text: "a\nb\n", hiddenLines: 1, hiddenChars: 0 });
  assert.deepEqual(capOutput("", 2, 100), { text: "", hiddenLines: 0, hiddenChars: 0 });
});

test("a reply as a screen reader is told it: its first lines and how many more", () => {
  assert.equal(announcement('"v"\n'), '"v"');
  assert.equal(announcement(""), "");
  assert.equal(announcement("\n"), "");
  assert.equal(announcement("1) \"a\"\n2) \"b\"\n3) \"c\"\n4) \"d\"\n5) \"e\"\n"), '1) "a"\n2) "b"\n3) "c"\n… 2 more lines');
  assert.equal(announcement("1\n2\n3\n4\n"), "1\n2\n3\n… 1 more line");
  // Terminal controls are not read out.
  assert.equal(announcement("\x1b[1mGET\x1b[0m key\r\n"), "GET key");
  const long = announcement(`"${"x".repeat(500)}"\n`);
  assert.ok(long.length <= 162 && long.endsWith("…"), long);
});
