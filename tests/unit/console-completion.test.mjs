// Tab completion (www/console/completion.js), modelled on redis-cli's completionCallback().

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildCompletionEntries, complete } from "../../www/console/completion.js";

const table = [
  { name: "get", summary: "Get the value of a key", group: "string" },
  { name: "getdel", summary: "Get the value of a key and delete the key", group: "string" },
  { name: "config|get", summary: "Return the effective values of configuration parameters", group: "server" },
  { name: "config|set", summary: "Set configuration parameters to the given values", group: "server" },
  { name: "zadd", summary: "Add members to a sorted set", group: "sorted-set" },
];

test("entries: full names in upper case, subcommands spaced, one entry per group, sorted", () => {
  const entries = buildCompletionEntries(table);
  assert.deepEqual(
    entries.map((e) => [e.full, e.kind]),
    [
      ["@server", "group"],
      ["@sorted-set", "group"],
      ["@string", "group"],
      ["CONFIG GET", "command"],
      ["CONFIG SET", "command"],
      ["GET", "command"],
      ["GETDEL", "command"],
      ["ZADD", "command"],
    ],
  );
  assert.equal(entries.find((e) => e.full === "@string").summary, "commands in the string group");
});

test("the whole line so far is matched, case-blind, leading spaces ignored", () => {
  const entries = buildCompletionEntries(table);
  assert.deepEqual(
    complete(entries, "  ge").map((c) => c.line),
    ["GET", "GETDEL"],
  );
  assert.deepEqual(
    complete(entries, "config s").map((c) => c.line),
    ["CONFIG SET"],
  );
  assert.deepEqual(complete(entries, "get k"), [], "past the command name: nothing");
  assert.deepEqual(complete(entries, ""), [], "an empty line completes to nothing");
});

test("after `help `, groups complete too, and the typed `help ` is kept", () => {
  const entries = buildCompletionEntries(table);
  assert.deepEqual(
    complete(entries, "HELP @s").map((c) => c.line),
    ["HELP @server", "HELP @sorted-set", "HELP @string"],
  );
  assert.deepEqual(complete(entries, "help z"), [{ line: "help ZADD", full: "ZADD", summary: "Add members to a sorted set" }]);
  assert.equal(complete(entries, "@s").length, 0, "groups only after help");
  assert.equal(complete(entries, "help ").length, entries.length, "help alone: everything");
});
