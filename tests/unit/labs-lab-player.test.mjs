// Loading labs (www/labs/lab-player.js): which ids are fetched, the shape a lab must have, and
// what a missing or broken lab file says. Every committed lab passes the check.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, test } from "node:test";
import { isLabId, labProblem, loadLab, loadLabIndex } from "../../www/labs/lab-player.js";

const DATA = new URL("../../www/labs/data/", import.meta.url);
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Serves `files` ({name: body | status}) as fetch would, recording what was asked. */
function serve(files) {
  const asked = [];
  globalThis.fetch = async (url) => {
    const name = new URL(url).pathname.split("/").pop();
    asked.push(name);
    const body = files[name];
    if (body === undefined) return new Response("not found", { status: 404 });
    if (body instanceof Error) throw body;
    return new Response(typeof body === "string" ? body : JSON.stringify(body));
  };
  return asked;
}

const good = { title: "T", seed: 1, startMs: 0, steps: [{ title: "s", text: "t", lines: [{ line: "PING" }] }] };

test("isLabId: a file name of lower-case letters, digits and dashes, nothing else", () => {
  for (const id of ["leaderboard", "delay-queue-2", "a"]) assert.equal(isLabId(id), true, id);
  for (const id of ["", "-x", "../x", "A", "x.json", "x/y", "x".repeat(65), 5, null]) assert.equal(isLabId(id), false, String(id));
});

test("labProblem: the shape the player relies on", () => {
  assert.equal(labProblem(good), null);
  assert.match(labProblem([]), /no title/);
  assert.match(labProblem(null), /not a JSON object/);
  assert.match(labProblem({ ...good, seed: -1 }), /seed/);
  assert.match(labProblem({ ...good, startMs: "0" }), /startMs/);
  assert.match(labProblem({ ...good, steps: [] }), /no steps/);
  assert.match(labProblem({ ...good, steps: [{ title: "s" }] }), /step 1 has no title or text/);
  assert.match(labProblem({ ...good, steps: [good.steps[0], { title: "s", text: "t", lines: "PING" }] }), /step 2's lines are not a list/);
});

test("every lab in www/labs/data passes the check", () => {
  const files = readdirSync(DATA).filter((f) => f.endsWith(".json") && f !== "index.json");
  assert.ok(files.length > 0);
  for (const f of files) {
    assert.equal(isLabId(f.replace(/\.json$/, "")), true, f);
    assert.equal(labProblem(JSON.parse(readFileSync(new URL(f, DATA), "utf8"))), null, f);
  }
});

test("loadLab: a bad id is refused without fetching; a missing, broken or malformed file says which", async () => {
  const asked = serve({ "ok.json": good, "broken.json": "{", "shapeless.json": { title: "x" }, "offline.json": new Error("ECONNRESET") });
  const base = { baseUrl: new URL("http://labs.test/labs/") };
  assert.deepEqual(await loadLab("ok", base), { ok: true, lab: good });
  assert.match((await loadLab("../secrets", base)).error, /is not a lab name/);
  assert.deepEqual(asked, ["ok.json"], "the bad id was never fetched");
  assert.match((await loadLab("missing", base)).error, /There is no lab called "missing" \(HTTP 404\)/);
  assert.match((await loadLab("broken", base)).error, /is not valid JSON/);
  assert.match((await loadLab("shapeless", base)).error, /cannot be played: the lab's seed is not a whole number/);
  assert.match((await loadLab("offline", base)).error, /could not be downloaded \(ECONNRESET\)/);
});

test("loadLabIndex: the labs that load, with their titles; a broken index is an empty list", async () => {
  serve({ "index.json": { labs: ["ok", "missing", "../x"] }, "ok.json": { ...good, summary: "S" } });
  assert.deepEqual(await loadLabIndex({ baseUrl: new URL("http://labs.test/labs/") }), [{ id: "ok", title: "T", summary: "S" }]);
  serve({ "index.json": "nope" });
  assert.deepEqual(await loadLabIndex({ baseUrl: new URL("http://labs.test/labs/") }), []);
});

test("loadLabIndex: a lab in one of the index's tracks carries the track, titled in the language asked", async () => {
  const tracks = [
    { id: "articles", title: "Source articles", "zh-CN": "原文逐条验证", labs: ["b", "c", "../x"] },
    { id: "again", title: "Again", labs: ["c"] },
    { id: "broken", labs: ["a"] },
  ];
  serve({ "index.json": { labs: ["a", "b", "c"], tracks }, "a.json": { ...good, summary: "S" }, "b.json": good, "c.json": good });
  const base = new URL("http://labs.test/labs/");
  const en = await loadLabIndex({ baseUrl: base, lang: "en" });
  assert.deepEqual(
    en.map((l) => [l.id, l.track ?? null]),
    [
      ["a", null],
      ["b", { id: "articles", title: "Source articles" }],
      ["c", { id: "articles", title: "Source articles" }],
    ],
  );
  // (No zh-CN texts are served: the labs themselves stay English, the track's title does not.)
  const zh = await loadLabIndex({ baseUrl: base, lang: "zh-CN" });
  assert.deepEqual(zh[1].track, { id: "articles", title: "原文逐条验证" });
});
