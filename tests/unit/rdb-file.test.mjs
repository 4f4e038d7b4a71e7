// The words of the page's RDB file actions (www/rdb-file.js): the size cap, a file's name fit
// to show, what a load did or why not, what the server holds, a drag that carries files.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  carriesFiles,
  datasetSize,
  failedText,
  fileLabel,
  fileProblem,
  loadedText,
  loadSummary,
  MAX_RDB_BYTES,
  replaceQuestion,
  replayedText,
  sizeText,
} from "../../www/rdb-file.js";

test("a file's name is shown quoted, control characters as ?, a long one cut in its middle", () => {
  assert.equal(fileLabel("dump.rdb"), "“dump.rdb”");
  assert.equal(fileLabel("a\nb\u0000c\u009b.rdb"), "“a?b?c?.rdb”");
  assert.equal(fileLabel(""), "“the file”");
  const long = `${"x".repeat(100)}-backup.rdb`;
  const shown = fileLabel(long);
  assert.equal([...shown].length, 60 + 2);
  assert.ok(shown.endsWith("xxxx-backup.rdb”") && shown.includes("…"), shown);
  // Characters, not UTF-16 units: an emoji is never cut in half.
  const emoji = fileLabel("😀".repeat(80));
  assert.ok(emoji.isWellFormed() && emoji.includes("…"), emoji);
});

test("sizes in words, and the files that are not read: empty, or past the cap", () => {
  assert.equal(sizeText(1), "1 byte");
  assert.equal(sizeText(1023), "1,023 bytes");
  assert.equal(sizeText(38_298), "37.4 KB");
  assert.equal(sizeText(MAX_RDB_BYTES), "4.0 MB");
  assert.equal(fileProblem({ name: "a.rdb", size: 10 }), null);
  assert.equal(fileProblem({ name: "a.rdb", size: MAX_RDB_BYTES }), null, "the cap itself loads");
  assert.equal(fileProblem({ name: "a.rdb", size: 0 }), "“a.rdb” is empty: it is not an RDB file. Nothing changed.");
  assert.equal(
    fileProblem({ name: "a.rdb", size: MAX_RDB_BYTES + 1 }),
    "“a.rdb” is 4,194,305 bytes: the playground loads RDB files up to 4,194,304 bytes. Nothing changed.",
    "just past the cap: in bytes, not two equal-looking “4.0 MB”",
  );
  assert.equal(fileProblem({ name: "big.rdb", size: 300 * 1024 * 1024 }), "“big.rdb” is 300.0 MB: the playground loads RDB files up to 4.0 MB. Nothing changed.");
});

test("what a load did, and why one did not (Redis's words, one full stop)", () => {
  const r = { ok: /** @type {const} */ (true), version: 10, keysLoaded: 12, keysExpired: 1, emptyKeysSkipped: 0, libraries: 1 };
  assert.equal(loadSummary(r), "12 keys, 1 function library; 1 key had expired: skipped, as a master does");
  assert.equal(loadSummary({ ...r, keysLoaded: 1, keysExpired: 0, libraries: 0 }), "1 key");
  assert.equal(loadSummary({ ...r, keysExpired: 3, emptyKeysSkipped: 2, libraries: 2 }), "12 keys, 2 function libraries; 3 keys had expired: skipped, as a master does; 2 empty keys skipped");
  assert.match(loadedText("dump.rdb", r), /^\(redisplay\) loaded “dump\.rdb” \(RDB version 10\) as a restarted redis-server would: 12 keys, 1 function library; 1 key had expired/);
  assert.equal(replayedText(r), "(redisplay) the RDB file loaded in this session, loaded again: 12 keys, 1 function library; 1 key had expired: skipped, as a master does.");
  assert.equal(replayedText({ ok: false, error: "boom" }), "(redisplay) the RDB file loaded in this session did not load again: boom");
  assert.equal(failedText("x.rdb", "Wrong signature trying to load DB from file"), "“x.rdb” did not load: Wrong signature trying to load DB from file. Nothing changed.");
  assert.equal(
    failedText("x.rdb", "Wrong RDB checksum expected: (1) but got (2). Aborting now."),
    "“x.rdb” did not load: Wrong RDB checksum expected: (1) but got (2). Aborting now. Nothing changed.",
  );
});

test("what the server holds, from INFO keyspace and memory; the question names it", () => {
  const info = { db0: "keys=3,expires=1,avg_ttl=0", db7: "keys=2,expires=0,avg_ttl=0", dbsize: "99", number_of_libraries: "1", used_memory: "1" };
  assert.deepEqual(datasetSize(info), { keys: 5, libraries: 1 });
  assert.deepEqual(datasetSize({}), { keys: 0, libraries: 0 });
  const q = replaceQuestion("dump.rdb", { keys: 5, libraries: 1 });
  assert.equal(q.title, "Load “dump.rdb”?");
  assert.match(q.text, /\(5 keys and 1 function library\)/);
  assert.match(replaceQuestion("d", { keys: 1, libraries: 0 }).text, /\(1 key\)/);
});

test("only a drag that carries files is the page's", () => {
  assert.equal(carriesFiles({ types: ["Files"] }), true);
  assert.equal(carriesFiles({ types: ["text/plain", "Files"] }), true);
  assert.equal(carriesFiles({ types: ["text/plain", "text/uri-list"] }), false);
  assert.equal(carriesFiles(null), false);
  assert.equal(carriesFiles({ types: null }), false);
});
