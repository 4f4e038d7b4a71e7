// Crash recovery and the engine's API (www/engine/recovery.js, facade.js, lab-adapters.js) on a
// fake wasm package: a trap drops the Playground, the calls get fallbacks, and the engine comes
// back on a fresh module instance with the same seed at the virtual time it had reached.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createFacade } from "../../www/engine/facade.js";
import { createLabAdapters } from "../../www/engine/lab-adapters.js";
import { DEFAULT_PROMPT } from "../../www/engine/plain.js";
import { createRecovery } from "../../www/engine/recovery.js";

const T0 = 1_735_689_600_000;

/** A fake glue module instance: Playground and DelayQueueLab classes that can be made to trap. */
function fakePkg(instance, world) {
  class Playground {
    constructor(seed, startMs) {
      this.seed = seed;
      this.clock = startMs;
      this.db = 0;
      this.freed = false;
      this.instance = instance;
      world.made.push(this);
    }
    trapIf(op) {
      if (world.trap === op) {
        world.trap = null;
        throw new WebAssembly.RuntimeError("unreachable");
      }
    }
    now() {
      return this.clock;
    }
    prompt() {
      return this.db === 0 ? "127.0.0.1:6379> " : `127.0.0.1:6379[${this.db}]> `;
    }
    execute(line) {
      this.trapIf("execute");
      if (line.startsWith("SELECT ")) this.db = Number(line.slice(7));
      return { text: "OK\n", prompt: this.prompt(), reply: { type: "status", value: "OK" }, quit: false, clear: false };
    }
    command(args) {
      this.trapIf("command");
      return { text: `${args.join(" ")}\n`, reply: { type: "status", value: "OK" } };
    }
    peek(args) {
      return args[0] === "INFO" ? { text: "", reply: { type: "bulk", value: `# Server\r\nseed:${this.seed}\r\n` } } : { text: "", reply: { type: "array", value: [{ type: "bulk", value: args[2] }, { type: "bulk", value: "10" }] } };
    }
    advance_to(ms) {
      this.trapIf("advance_to");
      this.clock = ms;
      return { ticks: 1, lagMs: 0, now: ms };
    }
    free() {
      this.freed = true;
    }
  }
  class DelayQueueLab {
    constructor(config) {
      if (config.bad) throw new Error("delay-queue: consumers must be 1 to 8");
      this.t = 0;
    }
    run_until(t) {
      if (world.trap === "lab") throw new WebAssembly.RuntimeError("unreachable");
      this.t = t;
      return { now: t, done: t >= 1000 };
    }
    drain() {
      return { events: [{ kind: "order", task: "o1", at: 0, due: 10 }], dropped: 0 };
    }
    metrics() {
      return { now: this.t, tasks: 1 };
    }
    next_event_ms() {
      return -1;
    }
    now() {
      return this.t;
    }
    free() {}
    static strategy_name(n) {
      return `s${n}`;
    }
    static strategy_code(n) {
      return `code ${n}`;
    }
  }
  // wasm-bindgen's LabSims is a class of static methods: a function with properties.
  const LabSims = Object.assign(function LabSims() {}, {
    pipeline: (config) => ("serviceNs" in config ? { batches: config.commands, serviceNs: config.serviceNs } : { batches: config.commands }),
    set_burst: (n) => n,
  });
  return { Playground, DelayQueueLab, LabSims };
}

/** An engine as engine.js puts it together, on fake instances; `world` says what happened. */
function makeEngine({ failRestart = false } = {}) {
  const world = { made: [], instances: [0], trap: null, crashes: [], recovered: 0, restarted: null };
  world.restarted = new Promise((resolve) => {
    world.onRecovered = resolve;
  });
  const recovery = createRecovery({
    pkg: fakePkg(0, world),
    instantiate: async (generation) => {
      if (failRestart) throw new Error("the network is gone");
      world.instances.push(generation);
      return fakePkg(generation, world);
    },
    seed: 7,
    startMs: T0,
    onCrash: (info) => world.crashes.push(info.operation),
    onRecovered: () => {
      world.recovered += 1;
      world.onRecovered();
    },
    defaultPrompt: DEFAULT_PROMPT,
  });
  const engine = { ...createFacade(recovery), ...createLabAdapters(recovery, { seed: 7, startMs: T0 }) };
  return { engine, world };
}

test("a trap gets a fallback answer, then the engine comes back fresh at the same time", async () => {
  const { engine, world } = makeEngine();
  engine.execute("SELECT 2");
  engine.advanceTo(T0 + 5000);
  world.trap = "execute";
  const r = engine.execute("GET k");
  assert.match(r.text, /the engine is restarting after an internal error/);
  assert.equal(r.prompt, "127.0.0.1:6379[2]> ", "the last prompt it had");
  assert.deepEqual(world.crashes, ["execute"]);
  assert.equal(world.made[0].freed, true, "the broken Playground is freed");
  assert.equal(engine.isRecovering(), true);
  assert.equal(engine.now(), T0 + 5000, "while recovering: the last time seen");
  assert.deepEqual(engine.info("server"), {});
  await world.restarted;
  assert.equal(engine.isRecovering(), false);
  assert.deepEqual(world.instances, [0, 1], "a fresh module instance");
  const fresh = world.made[1];
  assert.equal(fresh.instance, 1);
  assert.equal(fresh.seed, 7);
  assert.equal(fresh.clock, T0 + 5000);
  assert.equal(engine.prompt(), "127.0.0.1:6379> ", "a fresh engine: db 0");
  assert.equal(engine.execute("PING").text, "OK\n");
});

test("a restart that fails is reported too", async () => {
  const { engine, world } = makeEngine({ failRestart: true });
  world.trap = "command";
  assert.deepEqual(engine.command(["SET", "a", "1"]).reply, { type: "error", value: "the engine is restarting after an internal error" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(world.crashes, ["command", "restart"]);
  assert.equal(engine.isRecovering(), true);
});

test("free(): nothing is recreated and every call gets its fallback", async () => {
  const { engine, world } = makeEngine();
  engine.free();
  assert.equal(world.made[0].freed, true);
  assert.equal(engine.isRecovering(), true);
  assert.equal(engine.execute("PING").reply, null);
  assert.deepEqual(engine.advanceTo(T0 + 1), { ticks: 0, lagMs: 0, now: T0 });
  assert.equal(engine.configGet("hz"), null);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(world.instances, [0]);
  assert.deepEqual(world.crashes, []);
});

test("peeks: INFO parsed, CONFIG GET's value", () => {
  const { engine } = makeEngine();
  assert.deepEqual(engine.info("server"), { seed: "7" });
  assert.equal(engine.configGet("hz"), "10");
});

test("a scratch engine made before a crash is dead after it; its trap restarts the page's engine", async () => {
  const { engine, world } = makeEngine();
  const scratch = engine.createScratchEngine({ seed: 3 });
  assert.equal(world.made[1].seed, 3);
  assert.equal(scratch.command(["PING"]).text, "PING\n");
  world.trap = "command";
  assert.deepEqual(scratch.command(["PING"]).reply, { type: "error", value: "the scratch engine is gone" });
  assert.deepEqual(world.crashes, ["scratch command"]);
  assert.equal(engine.isRecovering(), true, "the module trapped: the page's engine restarts too");
  await world.restarted;
  assert.deepEqual(scratch.advanceTo(T0 + 10), { ticks: 0, lagMs: 0, now: T0 + 10 }, "still dead after the restart");
  scratch.free();
  assert.equal(world.made[2].freed, false, "freeing a dead scratch engine leaves the new one alone");
});

test("delay-queue labs: a refused config throws its sentence; a trap kills the lab and restarts", async () => {
  const { engine, world } = makeEngine();
  assert.throws(() => engine.createDelayQueueLab({ bad: true }), /consumers must be 1 to 8/);
  const lab = engine.createDelayQueueLab({});
  assert.deepEqual(lab.runUntil(500), { now: 500, done: false });
  assert.equal(lab.drain().events.length, 1);
  world.trap = "lab";
  assert.throws(() => lab.runUntil(600), /the lab hit an internal error in run_until \(RuntimeError: unreachable\)/);
  world.trap = null;
  assert.throws(() => lab.now(), /the lab is gone/);
  assert.deepEqual(world.crashes, ["delay-queue run_until"]);
  assert.throws(() => engine.createDelayQueueLab({}), /restarting/);
  await world.restarted;
  assert.equal(engine.createDelayQueueLab({}).runUntil(1000).done, true);
});

test("lab simulations: run to the end on their own; a refusal is words, not a throw", () => {
  const { engine } = makeEngine();
  assert.deepEqual(engine.runLabSim("delay-queue", {}), { ok: true, result: { now: Number.MAX_SAFE_INTEGER, tasks: 1 } });
  assert.deepEqual(engine.runLabSim("pipeline", { commands: 4 }), { ok: true, result: { batches: 4 } });
  // server "this-page": the adapter times the engine running SETs and passes the time per SET.
  const measured = engine.runLabSim("pipeline", { commands: 4, server: "this-page" });
  assert.equal(measured.ok, true);
  assert.equal(measured.result.batches, 4);
  assert.equal(measured.result.measuredSets, 20_000);
  assert.ok(measured.result.measuredMs > 0);
  assert.equal(measured.result.serviceNs, (measured.result.measuredMs * 1e6) / 20_000);
  assert.deepEqual(engine.runLabSim("delay-queue", { bad: true }), { ok: false, error: "delay-queue: consumers must be 1 to 8" });
  assert.deepEqual(engine.runLabSim("quantum", {}), { ok: false, error: 'unknown simulation "quantum"' });
  assert.deepEqual(engine.delayQueueStrategy(2), { name: "s2", code: "code 2" });
});
