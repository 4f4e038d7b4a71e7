// The pipelining lab's words for its simulation (www/labs/pipeline-table.js): times in the unit
// that reads best, and a sim line described by its config before it runs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { describePipeline, duration, perSet } from "../../www/labs/pipeline-table.js";

test("durations: µs under a millisecond, ms under a second, s under two minutes, then minutes", () => {
  assert.equal(duration(0.79), "790 µs");
  assert.equal(duration(0.0054), "5.4 µs");
  assert.equal(duration(2.5), "2.5 ms");
  assert.equal(duration(54.12), "54.1 ms");
  assert.equal(duration(2554), "2.55 s");
  assert.equal(duration(12_054), "12.05 s");
  assert.equal(duration(5_000_054), "83.3 min");
  assert.equal(duration(Number.POSITIVE_INFINITY), "—");
});

test("a server's time per SET keeps three significant figures", () => {
  assert.equal(perSet(157), "0.157 µs");
  assert.equal(perSet(540), "0.54 µs");
  assert.equal(perSet(2041.7), "2.04 µs");
  assert.equal(perSet(8000), "8 µs");
  assert.equal(perSet(25_000), "25 µs");
});

test("a pipeline line says what it sends and where the server's time comes from", () => {
  assert.equal(
    describePipeline({ commands: 100000, batch: 100, network: "same-host", server: "redis-server" }),
    "pipeline simulation: 100,000 SETs, batches of 100, same host (loopback), redis-server as measured",
  );
  assert.equal(
    describePipeline({ commands: 100000, batch: 1000, rttUs: 112, serviceNs: 8000 }),
    "pipeline simulation: 100,000 SETs, batches of 1,000, round trip 112 µs, 8 µs per SET as given",
  );
  assert.equal(describePipeline({ network: "cross-region", server: "this-page" }), "pipeline simulation: cross-region, this page's engine, timed now");
  assert.equal(describePipeline({ batch: 1, server: "model" }), "pipeline simulation: batches of 1, the cost model");
});
