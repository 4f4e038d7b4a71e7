// Shareable sessions (www/session.js): recording the engine calls, the link format (encode /
// decode, every way a link can be bad), ?commands=, and replaying on a fresh engine.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeCommands,
  decodeSession,
  encodeCommands,
  encodeSession,
  MAX_LOG,
  recordSession,
  replayJob,
  replaySession,
  sessionProblem,
} from "../../www/session.js";

const T0 = 1_735_689_600_000;

/** An engine-shaped fake: a clock, and a log of the calls that reached it. */
function fakeEngine({ lagEvery = 0 } = {}) {
  const calls = [];
  let now = T0;
  let advances = 0;
  return {
    calls,
    now: () => now,
    advanceTo(target) {
      advances += 1;
      // Every `lagEvery`-th call stops halfway with lag, as a tick budget would.
      if (lagEvery > 0 && advances % lagEvery === 0 && target - now > 1) {
        now += Math.floor((target - now) / 2);
        return { ticks: 1, lagMs: target - now, now };
      }
      now = Math.max(now, target);
      return { ticks: 1, lagMs: 0, now };
    },
    execute: (line) => calls.push(["execute", line]) && { text: "OK\n" },
    executeOn: (n, line) => calls.push(["executeOn", n, line]) && { text: "OK\n" },
    command: (args) => calls.push(["command", args]) && { text: "OK\n" },
    populate: (...args) => calls.push(["populate", ...args]) && 3,
    openConsole: () => calls.push(["open"]) && 1,
    closeConsole: () => calls.push(["close"]) && true,
    interrupt: (n) => calls.push(["interrupt", n]) && "127.0.0.1:6379> ",
    setTime(ms) {
      calls.push(["setTime", ms]);
      now = ms;
    },
    reset: () => calls.push(["reset"]),
    tick(ms) {
      now += ms;
    },
  };
}

const session = (log, extra = {}) => ({ v: 1, seed: 7, startMs: T0, endMs: 5000, log, ...extra });

test("recordSession logs each changing call at its virtual time and still makes it", () => {
  const engine = fakeEngine();
  const rec = recordSession(engine, { seed: 7, startMs: T0 });
  engine.execute("SET a 1");
  engine.tick(250);
  engine.executeOn(1, "GET a");
  engine.command(["CONFIG", "SET", "hz", 50]);
  engine.populate(0, 10, "k:", 100, 200, "uniform");
  engine.openConsole();
  engine.interrupt(1);
  engine.closeConsole();
  engine.setTime(T0 + 60_000);
  engine.reset();
  assert.equal(engine.calls.length, 9);
  assert.deepEqual(rec.snapshot(), {
    v: 1,
    seed: 7,
    startMs: T0,
    endMs: 60_000,
    log: [
      [0, "line", 0, "SET a 1"],
      [250, "line", 1, "GET a"],
      [250, "command", ["CONFIG", "SET", "hz", "50"]],
      [250, "populate", 0, 10, "k:", 100, 200, "uniform"],
      [250, "open"],
      [250, "interrupt", 1],
      [250, "close"],
      [250, "setTime", 60_000],
      [60_000, "reset"],
    ],
  });
  assert.equal(rec.size(), 9);
  assert.equal(rec.overflow(), false);
  rec.stop();
  engine.execute("PING");
  assert.equal(rec.size(), 9, "stopped: nothing more is logged");
});

test("recordSession keeps at most MAX_LOG entries and says it overflowed", () => {
  const engine = fakeEngine();
  const rec = recordSession(engine, { seed: 1, startMs: T0 });
  for (let i = 0; i < MAX_LOG + 3; i += 1) engine.execute("PING");
  assert.equal(rec.size(), MAX_LOG);
  assert.equal(rec.overflow(), true);
});

test("a session survives the link: encode then decode gives it back", async () => {
  const s = session([
    [0, "line", 0, "SET ключ «値» \u0000 \\xff"],
    [100, "command", ["ZADD", "z", "1", "m"]],
    [200, "populate", 0, 1000, "p:", 10, 20, "exponential"],
    [300, "open"],
    [300, "interrupt", 1],
    [300, "close"],
    [400, "setTime", -1000],
    [500, "reset"],
  ]);
  const text = await encodeSession(s);
  assert.match(text, /^1\.[A-Za-z0-9_-]+$/, "URL-safe, no padding");
  assert.deepEqual(await decodeSession(text), { ok: true, session: s });
});

test("a session file (its JSON) decodes too", async () => {
  const s = session([[0, "line", 0, "PING"]]);
  assert.deepEqual(await decodeSession(`  ${JSON.stringify(s)}`), { ok: true, session: s });
});

test("a bad link says why, never throws", async () => {
  const good = await encodeSession(session([]));
  const cases = [
    [42, /not a redisplay session|too long/],
    ["hello", /it is not a redisplay session/],
    ["1.!!!", /could not be read/],
    [`${good.slice(0, -4)}`, /could not be read/],
    ["1.", /could not be read/],
    ["{not json", /could not be read/],
    [JSON.stringify(session([], { v: 2 })), /version 2 session; this page reads version 1/],
    ["x".repeat(8_000_001), /too long/],
  ];
  for (const [text, why] of cases) {
    const r = await decodeSession(text);
    assert.equal(r.ok, false, String(text).slice(0, 30));
    assert.match(r.error, why);
  }
});

test("sessionProblem checks every field and every entry's arguments", () => {
  assert.equal(sessionProblem(session([[0, "line", 0, "PING"]])), null);
  assert.match(sessionProblem(null), /not a session/);
  assert.match(sessionProblem(session([], { seed: -1 })), /seed/);
  assert.match(sessionProblem(session([], { seed: 1.5 })), /seed/);
  assert.match(sessionProblem(session([], { startMs: 253_402_300_799_001 })), /start time/);
  assert.match(sessionProblem(session([], { endMs: "5" })), /end time/);
  assert.match(sessionProblem(session({})), /log is not a list/);
  const bad = [
    [[0, "dance"], /entry 1 is not a recorded call/],
    [["0", "open"], /entry 1 is not a recorded call/],
    [[0, "line", 16, "PING"], /entry 1 \(line\) has bad arguments/],
    [[0, "line", 0, 5], /bad arguments/],
    [[0, "command", []], /bad arguments/],
    [[0, "command", ["GET", 1]], /bad arguments/],
    [[0, "populate", 0, 2_000_001, "k", 1, 2, "uniform"], /bad arguments/],
    [[0, "populate", 0, 10, "k", Number.NaN, 2, "uniform"], /bad arguments/],
    [[0, "interrupt", -1], /bad arguments/],
    [[0, "setTime", 0.5], /bad arguments/],
  ];
  for (const [entry, why] of bad) assert.match(sessionProblem(session([entry])), why, JSON.stringify(entry));
  assert.match(sessionProblem(session([[0, "open"], [0, "dance"]])), /entry 2 is not a recorded call/);
});

test("?commands= round-trips a list of lines, and refuses anything else", () => {
  const lines = ["SET a 1", 'SET b "two words"', "ZADD z 1 ü"];
  const text = encodeCommands(lines);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCommands(text), { ok: true, lines });
  const refused = [
    [encodeCommands({ not: "a list" }), /not a JSON list/],
    [encodeCommands([1, 2]), /not a JSON list/],
    [encodeCommands(Array.from({ length: 1001 }, () => "PING")), /at most 1000 command lines/],
    ["%%%", /could not be read/],
    [Buffer.from("[oops").toString("base64url"), /could not be read/],
    ["x".repeat(200_001), /too long/],
    [null, /too long/],
  ];
  for (const [t, why] of refused) {
    const r = decodeCommands(t);
    assert.equal(r.ok, false);
    assert.match(r.error, why);
  }
});

test("replaySession makes each call again at its time, then stops the clock where it was shared", () => {
  const engine = fakeEngine({ lagEvery: 2 });
  const host = [];
  replaySession(
    engine,
    session(
      [
        [0, "line", 0, "SET a 1"],
        [1000, "command", ["GET", "a"]],
        [1500, "populate", 0, 5, "k:", 1, 2, "uniform"],
        [2000, "open"],
        [2000, "line", 1, "GET a"],
        [2000, "interrupt", 1],
        [2500, "close"],
        [3000, "setTime", 10_000],
        [3000, "reset"],
      ],
      { endMs: 12_000 },
    ),
    {
      line: (n, text) => host.push(["line", n, text, engine.now() - T0]),
      open: () => host.push(["open", engine.now() - T0]),
      close: () => host.push(["close", engine.now() - T0]),
      interrupt: (n) => host.push(["interrupt", n, engine.now() - T0]),
      reset: () => host.push(["reset", engine.now() - T0]),
    },
  );
  assert.deepEqual(host, [
    ["line", 0, "SET a 1", 0],
    ["open", 2000],
    ["line", 1, "GET a", 2000],
    ["interrupt", 1, 2000],
    ["close", 2500],
    // setTime moved the clock to 10 s: the reset logged at 3 s is past, no time goes back.
    ["reset", 10_000],
  ]);
  assert.deepEqual(engine.calls, [
    ["command", ["GET", "a"]],
    ["populate", 0, 5, "k:", 1, 2, "uniform"],
    ["setTime", T0 + 10_000],
  ]);
  // Advances that lagged were repeated until the time was reached.
  assert.equal(engine.now(), T0 + 12_000);
});

test("replayJob: the same calls one unit at a time, a lagging advance as busy steps, the tick ask growing", () => {
  const engine = fakeEngine({ lagEvery: 1 });
  const asked = [];
  const advanceTo = engine.advanceTo;
  engine.advanceTo = (target, ticks) => {
    asked.push(ticks);
    return advanceTo(target, ticks);
  };
  const lines = [];
  const t = 0;
  const job = replayJob(
    engine,
    session([
      [0, "line", 0, "SET a 1"],
      [4000, "line", 0, "GET a"],
    ]),
    { line: (_n, text) => lines.push([text, engine.now() - T0]), open() {}, close() {}, interrupt() {}, reset() {} },
    { clock: () => t },
  );
  assert.equal(job.total, 2);
  const results = [];
  for (let r = ""; r !== "done"; ) {
    r = job.step();
    results.push(r);
  }
  // Each advance stops halfway (lag): busy steps until the clock gets there.
  assert.equal(results.filter((r) => r === "more").length, 1, "the last call is counted with the final advance");
  assert.ok(results.filter((r) => r === "busy").length >= 2, results.join(" "));
  assert.deepEqual(lines[0], ["SET a 1", 0]);
  assert.equal(lines[1][0], "GET a");
  assert.ok(lines[1][1] >= 4000 - 1, `GET a ran at ${lines[1][1]}`);
  assert.ok(engine.now() >= T0 + 5000 - 1);
  // Quick advances (the pinned clock says 0 ms) ask for four times more ticks each time.
  assert.ok(asked[1] === asked[0] * 4, asked.join(" "));
});

test("an RDB file that loaded is logged with its bytes (base64url); one that did not load is not", async () => {
  const engine = fakeEngine();
  engine.loadRdb = (bytes) => {
    engine.calls.push(["loadRdb", Array.from(bytes)]);
    return bytes[0] === 0x52 ? { ok: true, keysLoaded: 1 } : { ok: false, error: "Wrong signature trying to load DB from file" };
  };
  const rec = recordSession(engine, { seed: 7, startMs: T0 });
  const file = new Uint8Array([0x52, 0x45, 0x44, 0x49, 0x53, 0xfb, 0xff, 0x00, 0x3e]);
  engine.tick(500);
  assert.deepEqual(engine.loadRdb(file), { ok: true, keysLoaded: 1 }, "the call's result comes back");
  assert.equal(engine.loadRdb(new Uint8Array([1, 2, 3])).ok, false);
  const s = rec.snapshot();
  assert.deepEqual(s.log, [[500, "rdb", "UkVESVP7_wA-"]]);
  assert.equal(engine.calls.length, 2, "both calls reached the engine");

  // Through a link and back, then replayed: the host loads the same bytes at the same time.
  const back = await decodeSession(await encodeSession({ ...s, endMs: 1000 }));
  assert.equal(back.ok, true);
  const replayed = [];
  const fresh = fakeEngine();
  replaySession(fresh, back.session, {
    line() {},
    open() {},
    close() {},
    interrupt() {},
    reset() {},
    loadRdb: (bytes) => replayed.push([Array.from(bytes), fresh.now() - T0]),
  });
  assert.deepEqual(replayed, [[Array.from(file), 500]]);
});

test("sessionProblem refuses an RDB entry that is not base64url or past the size cap", () => {
  assert.equal(sessionProblem(session([[0, "rdb", "UkVESVM"]])), null);
  assert.match(sessionProblem(session([[0, "rdb", "UkVE+SVM="]])), /entry 1 \(rdb\) has bad arguments/);
  assert.match(sessionProblem(session([[0, "rdb", 42]])), /entry 1 \(rdb\) has bad arguments/);
  assert.match(sessionProblem(session([[0, "rdb", "A".repeat(Math.ceil((4 * 1024 * 1024 * 4) / 3) + 1)]])), /entry 1 \(rdb\) has bad arguments/);
});
