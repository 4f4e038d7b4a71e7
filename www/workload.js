// @ts-check
// The workload generator: a cache client that asks for keys with a chosen access pattern — GET,
// and on a miss SET (so the cache fills and, under maxmemory, evicts) — at N requests per second
// of virtual time, from a seeded random source: the same seed gives the same requests at the
// same virtual times, so runs can be repeated and policies compared on the same input.
//
// It is a client, not a model of Redis: everything it learns comes from the replies it gets
// and from INFO (keyspace_hits/keyspace_misses for the hit ratio, evicted_keys). Three parts:
//   - pure pieces: the seeded random source, the key choosers (uniform, Zipf, a sequential scan,
//     new keys only), spec parsing;
//   - `createWorkloadRun(spec, target)`: one run against an engine-like target; request i runs at
//     virtual time start + (i+1)·1000/rate, after the target's clock was advanced there (cron
//     ticks in between run where they fall), so how a run is cut into frames changes nothing;
//   - `createWorkloadDriver(engine)`: what the page's loop drives — the live run on the page's
//     engine (bounded per frame, in virtual time), and "compare policies" jobs, which run the
//     same workload on fresh engines, one per policy, a few milliseconds per frame.

import { number } from "./format.js";
import { t } from "./i18n.js";

/**
 * What a workload does (the eviction view's form, parsed by parseWorkloadSpec).
 * @typedef {object} WorkloadSpec
 * @property {string} distribution  an id of DISTRIBUTIONS
 * @property {number} skew          Zipf's exponent (0.1–3)
 * @property {number} keys          distinct keys
 * @property {number} rate          requests per second of virtual time
 * @property {number} requests      0: until stopped
 * @property {number} valueBytes
 * @property {string} ttl           an id of TTL_CHOICES
 * @property {number} seed
 * @property {boolean} flush        FLUSHALL before the run
 */

/**
 * What a run talks to: the page's engine or a scratch engine (engine.js).
 * @typedef {object} WorkloadTarget
 * @property {(args: string[]) => import("./engine/plain").CommandResult} command
 * @property {(nowMs: number, maxTicks?: number) => import("./engine/plain").Advance} advanceTo
 * @property {() => number} now
 * @property {(sections: string) => Record<string, string>} info
 */

/**
 * A cumulative INFO reading since the start of a run.
 * @typedef {object} RunSample
 * @property {number} requests
 * @property {number} atMs
 * @property {number} hits
 * @property {number} misses
 * @property {number} evicted
 */

/** The access patterns offered (labels are getters: in the page's language when read). */
export const DISTRIBUTIONS = Object.freeze([
  {
    id: "zipf",
    get label() {
      return t("Zipf (a few keys are hot)");
    },
  },
  {
    id: "uniform",
    get label() {
      return t("uniform");
    },
  },
  {
    id: "scan",
    get label() {
      return t("sequential scan");
    },
  },
  {
    id: "new",
    get label() {
      return t("new keys only");
    },
  },
]);

/** TTLs given to the keys the workload SETs (volatile-* policies evict only keys with one). */
export const TTL_CHOICES = Object.freeze([
  {
    id: "random",
    get label() {
      return t("random 10–60 min");
    },
    get title() {
      return t("each SET gets EX with a seeded random 600–3600 s");
    },
  },
  {
    id: "1h",
    get label() {
      return t("1 h");
    },
    get title() {
      return t("each SET gets EX 3600");
    },
  },
  {
    id: "none",
    get label() {
      return t("none");
    },
    get title() {
      return t("plain SET: volatile-* policies then have nothing to evict");
    },
  },
]);

export const MAX_KEYS = 1_000_000;
export const MAX_RATE = 100_000;
export const MAX_REQUESTS = 10_000_000;
export const MAX_VALUE_BYTES = 100_000;
/** Requests between two INFO readings of keyspace_hits/keyspace_misses. */
export const SAMPLE_EVERY = 250;
/** Requests between two drains of a scratch engine's event log (keeps its memory bounded). */
const SCRATCH_DRAIN_EVERY = 256;
/** Requests between two drains of the page engine's events within a frame. */
const PAGE_DRAIN_EVERY = 128;

/** @type {Readonly<WorkloadSpec>} */
export const DEFAULT_SPEC = Object.freeze({
  distribution: "zipf",
  skew: 1.0,
  keys: 10_000,
  rate: 1000,
  requests: 20_000,
  valueBytes: 100,
  ttl: "random",
  seed: 1,
  flush: true,
});

// ---------------------------------------------------------------------------------------------
// Seeded random source and key choosers
// ---------------------------------------------------------------------------------------------

/**
 * mulberry32: a small seeded generator of doubles in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @type {Map<string, Float64Array>} the Zipf CDFs built so far, by `keys:skew` (a big keyspace takes a few ms to build) */
const zipfCache = new Map();

/**
 * @param {number} keys
 * @param {number} skew
 */
function zipfCdf(keys, skew) {
  const id = `${keys}:${skew}`;
  let cdf = zipfCache.get(id);
  if (!cdf) {
    cdf = new Float64Array(keys);
    let sum = 0;
    for (let k = 0; k < keys; k += 1) {
      sum += 1 / (k + 1) ** skew;
      cdf[k] = sum;
    }
    for (let k = 0; k < keys; k += 1) cdf[k] /= sum;
    if (zipfCache.size > 4) zipfCache.clear();
    zipfCache.set(id, cdf);
  }
  return cdf;
}

/**
 * Which key each request asks for, as an index: `next()` → 0-based key number.
 * zipf: key k with probability ∝ 1/(k+1)^skew (key 0 the hottest); uniform: any of `keys`;
 * scan: 0, 1, 2 … keys−1, 0, 1 …; new: 0, 1, 2 … never repeating.
 * @param {{distribution: string, keys: number, skew: number, random: () => number}} options
 * @returns {{next(): number}}
 */
export function createKeyChooser({ distribution, keys, skew, random }) {
  switch (distribution) {
    case "zipf": {
      const cdf = zipfCdf(keys, skew);
      return {
        next() {
          const u = random();
          let lo = 0;
          let hi = keys - 1;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) lo = mid + 1;
            else hi = mid;
          }
          return lo;
        },
      };
    }
    case "uniform":
      return { next: () => Math.floor(random() * keys) };
    case "scan": {
      let i = 0;
      return {
        next() {
          const k = i;
          i = (i + 1) % keys;
          return k;
        },
      };
    }
    case "new": {
      let i = 0;
      return { next: () => i++ };
    }
    default:
      throw new Error(`unknown distribution ${distribution}`);
  }
}

/** @param {number} i */
export const keyName = (i) => `key:${i}`;

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * @param {unknown} text
 * @param {{min: number, max: number, what: string, example?: string}} bounds
 * @returns {{ok: true, value: number} | {ok: false, message: string}}
 */
function wholeNumber(text, { min, max, what, example }) {
  const v = String(text).trim().replace(/[,_ ]/g, "");
  let n = NaN;
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(v);
  if (m) n = Number(m[1]) * (m[2] === "" ? 1 : /k/i.test(m[2]) ? 1e3 : 1e6);
  if (!(Number.isInteger(n) && n >= min && n <= max)) {
    const vars = { what, min: number(min), max: number(max), example };
    return {
      ok: false,
      message: example ? t("{what}: a whole number from {min} to {max}, like {example}.", vars) : t("{what}: a whole number from {min} to {max}.", vars),
    };
  }
  return { ok: true, value: n };
}

/**
 * The workload form as typed → `{ok: true, value: spec}` or `{ok: false, message, field}`
 * (`field` names the input to mark).
 * @param {Record<string, unknown>} fields  the form's values by name
 * @returns {{ok: true, value: WorkloadSpec} | {ok: false, message: string, field: string}}
 */
export function parseWorkloadSpec(fields) {
  const distribution = String(fields.distribution);
  if (!DISTRIBUTIONS.some((d) => d.id === distribution)) {
    return { ok: false, field: "distribution", message: t("Access pattern: Zipf, uniform, sequential scan or new keys only.") };
  }
  /** @type {number} */
  let skew = DEFAULT_SPEC.skew;
  if (distribution === "zipf") {
    const v = String(fields.skew).trim();
    skew = /^(\d+(\.\d*)?|\.\d+)$/.test(v) ? Number(v) : NaN;
    if (!(skew >= 0.1 && skew <= 3)) {
      return { ok: false, field: "skew", message: t("Zipf skew: a number from 0.1 to 3 (1.0 is the classic web-cache shape; higher is more skewed).") };
    }
  }
  const keys = wholeNumber(fields.keys, { min: 1, max: MAX_KEYS, what: t("Distinct keys"), example: t("10000 or 10k") });
  if (!keys.ok) return { ...keys, field: "keys" };
  const rate = wholeNumber(fields.rate, { min: 1, max: MAX_RATE, what: t("Requests per second (virtual time)"), example: "1000" });
  if (!rate.ok) return { ...rate, field: "rate" };
  const reqText = String(fields.requests).trim();
  let requests = 0;
  if (reqText !== "" && reqText !== "0" && reqText !== "∞") {
    const r = wholeNumber(reqText, { min: 1, max: MAX_REQUESTS, what: t("Requests (empty or 0: until stopped)"), example: t("20000 or 20k") });
    if (!r.ok) return { ...r, field: "requests" };
    requests = r.value;
  }
  const value = wholeNumber(fields.valueBytes, { min: 1, max: MAX_VALUE_BYTES, what: t("Value size in bytes"), example: "100" });
  if (!value.ok) return { ...value, field: "valueBytes" };
  const ttl = String(fields.ttl);
  if (!TTL_CHOICES.some((c) => c.id === ttl)) return { ok: false, field: "ttl", message: t("TTL: none, 1 h or random 10–60 min.") };
  const seed = wholeNumber(fields.seed, { min: 0, max: 4294967295, what: t("Seed"), example: "1" });
  if (!seed.ok) return { ...seed, field: "seed" };
  return {
    ok: true,
    value: {
      distribution,
      skew,
      keys: keys.value,
      rate: rate.value,
      requests,
      valueBytes: value.value,
      ttl,
      seed: seed.value,
      flush: Boolean(fields.flush),
    },
  };
}

/**
 * A short description of a spec: "Zipf(1.0) over 10,000 keys, 1,000 req/s, seed 1".
 * @param {WorkloadSpec} spec
 */
export function describeSpec(spec) {
  const keys = number(spec.keys);
  const pattern =
    spec.distribution === "zipf"
      ? t("Zipf({skew}) over {keys} keys", { skew: spec.skew.toFixed(spec.skew * 10 === Math.round(spec.skew * 10) ? 1 : 2), keys })
      : spec.distribution === "uniform"
        ? t("uniform over {keys} keys", { keys })
        : spec.distribution === "scan"
          ? t("a scan of {keys} keys", { keys })
          : t("new keys only");
  return t("{pattern}, {rate} req/s, seed {seed}", { pattern, rate: number(spec.rate), seed: spec.seed });
}

/**
 * One INFO reading (a peek: not counted as a command, nothing evicted before it). The run reads
 * at fixed points (every SAMPLE_EVERY requests, and at its end), and the eviction view, while a
 * run is live, shows these readings.
 * @param {WorkloadTarget} target
 */
function readStats(target) {
  const info = target.info("memory stats keyspace");
  let keys = 0;
  let expires = 0;
  for (const [field, value] of Object.entries(info)) {
    const m = /^db\d+$/.test(field) ? /keys=(\d+),expires=(\d+)/.exec(value) : null;
    if (m) {
      keys += Number(m[1]);
      expires += Number(m[2]);
    }
  }
  return {
    hits: Number(info.keyspace_hits) || 0,
    misses: Number(info.keyspace_misses) || 0,
    evicted: Number(info.evicted_keys) || 0,
    used: Number(info.used_memory) || 0,
    maxmemory: Number(info.maxmemory) || 0,
    policy: info.maxmemory_policy ?? "",
    keys,
    expires,
  };
}

// ---------------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------------

const OOM_PREFIX = "OOM ";

/**
 * One run of `spec` against `target` (`{command(args) → {reply}, advanceTo(ms, maxTicks) →
 * {ticks, lagMs, now}, now() → ms, info(section) → {field: value}}`), its first request
 * 1000/rate ms after `startMs`.
 * @param {WorkloadSpec} spec
 * @param {WorkloadTarget} target
 * @param {{startMs: number, label?: string}} options
 */
export function createWorkloadRun(spec, target, { startMs, label = "" }) {
  const random = seededRandom(spec.seed);
  const ttlRandom = seededRandom((spec.seed ^ 0x9e3779b9) >>> 0);
  const chooser = createKeyChooser({ distribution: spec.distribution, keys: spec.keys, skew: spec.skew, random });
  const value = "v".repeat(spec.valueBytes);
  const baseline = readStats(target);
  let i = 0; // requests done
  /** @type {string | null} a request whose GET ran but whose SET did not yet (never across calls) */
  let pendingKey = null;
  const counts = { gets: 0, hits: 0, misses: 0, sets: 0, oom: 0, errors: 0 };
  /** @type {RunSample[]} cumulative INFO readings since the start */
  const samples = [{ requests: 0, atMs: startMs, hits: 0, misses: 0, evicted: 0 }];
  let memory = baseline; // the latest reading, as INFO gave it (not relative to the start)
  let lastError = "";
  let stopped = false;

  const timeOf = (n) => startMs + Math.floor(((n + 1) * 1000) / spec.rate);

  function sample(atMs) {
    const s = readStats(target);
    memory = s;
    samples.push({
      requests: i,
      atMs,
      hits: s.hits - baseline.hits,
      misses: s.misses - baseline.misses,
      evicted: s.evicted - baseline.evicted,
    });
  }

  function setArgs(key) {
    if (spec.ttl === "none") return ["SET", key, value];
    const seconds = spec.ttl === "1h" ? 3600 : 600 + Math.floor(ttlRandom() * 3001);
    return ["SET", key, value, "EX", String(seconds)];
  }

  /** Runs request `i` (the target's clock is at its time). */
  function request() {
    const key = keyName(chooser.next());
    pendingKey = key;
    const got = target.command(["GET", key]).reply;
    counts.gets += 1;
    if (got?.type === "bulk") {
      counts.hits += 1;
    } else {
      counts.misses += 1;
      const set = target.command(setArgs(key)).reply;
      counts.sets += 1;
      if (set?.type === "error") {
        if (String(set.value).startsWith(OOM_PREFIX)) counts.oom += 1;
        else counts.errors += 1;
        lastError = String(set.value);
      }
    }
    pendingKey = null;
    i += 1;
  }

  return {
    spec,
    label,
    startMs,

    /** Virtual time of the next request, or Infinity when the run is over. */
    nextAt() {
      return this.done() ? Infinity : timeOf(i);
    },

    done() {
      return stopped || (spec.requests > 0 && i >= spec.requests);
    },

    stop() {
      if (!stopped && samples[samples.length - 1].requests !== i) sample(target.now());
      stopped = true;
    },

    /**
     * Runs the requests due by virtual time `untilMs`, advancing the target's clock to each one
     * first. Stops early when `budget.deadline` (real ms, checked every few requests) passed,
     * `budget.maxTicks` cron ticks ran, or a tick budget left the clock short of a request.
     * `onBatch()` is called every `drainEvery` requests (the caller drains events there).
     * Returns `{requests, ticks, stoppedShort}`.
     * @param {number} untilMs
     * @param {{deadline?: number, realNow?: () => number, maxTicks?: number, drainEvery?: number, onBatch?: (() => void) | null}} [budget]
     */
    runUntil(untilMs, { deadline = Infinity, realNow = () => performance.now(), maxTicks = Infinity, drainEvery = 0, onBatch = null } = {}) {
      let ran = 0;
      let ticks = 0;
      while (!this.done()) {
        const at = timeOf(i);
        if (at > untilMs) return { requests: ran, ticks, stoppedShort: false };
        if ((ran & 15) === 0 && ran > 0 && realNow() >= deadline) return { requests: ran, ticks, stoppedShort: true };
        const left = maxTicks - ticks;
        if (left < 1) return { requests: ran, ticks, stoppedShort: true };
        const adv = target.advanceTo(at, Number.isFinite(left) ? left : undefined);
        ticks += adv.ticks;
        if (adv.lagMs > 0 || adv.now < at) return { requests: ran, ticks, stoppedShort: true };
        request();
        ran += 1;
        if (i % SAMPLE_EVERY === 0 || (spec.requests > 0 && i >= spec.requests)) sample(at);
        if (drainEvery > 0 && onBatch && ran % drainEvery === 0) onBatch();
      }
      return { requests: ran, ticks, stoppedShort: false };
    },

    /** What the run did so far, as plain data (the view draws it). */
    status() {
      const last = samples[samples.length - 1];
      return {
        label,
        spec,
        startMs,
        requests: i,
        total: spec.requests,
        done: this.done(),
        stopped,
        counts: { ...counts },
        samples,
        info: last,
        memory,
        lastError,
        pendingKey,
      };
    },
  };
}

/** @typedef {ReturnType<typeof createWorkloadRun>} WorkloadRun */

/**
 * Hit ratio from INFO readings: cumulative since the start, or over the last `window` requests.
 * @param {RunSample[]} samples
 * @param {number} [window]
 * @returns {number | null}
 */
export function hitRatio(samples, window = Infinity) {
  if (samples.length < 2) return null;
  const last = samples[samples.length - 1];
  let first = samples[0];
  if (Number.isFinite(window)) {
    for (let k = samples.length - 2; k >= 0; k -= 1) {
      first = samples[k];
      if (last.requests - samples[k].requests >= window) break;
    }
  }
  const h = last.hits - first.hits;
  const m = last.misses - first.misses;
  return h + m > 0 ? h / (h + m) : null;
}

// ---------------------------------------------------------------------------------------------
// The page's driver: the live run and "compare policies" jobs
// ---------------------------------------------------------------------------------------------

/** The eight policies, in the order the comparison lists them. */
export const POLICIES = Object.freeze([
  "allkeys-lru",
  "allkeys-lfu",
  "allkeys-random",
  "volatile-lru",
  "volatile-lfu",
  "volatile-random",
  "volatile-ttl",
  "noeviction",
]);

/**
 * The same workload on a fresh engine per policy. `makeEngine()` returns a scratch engine
 * (engine.js `createScratchEngine`), `config` the parameters every engine gets before the run.
 * @param {object} options
 * @param {WorkloadSpec} options.spec
 * @param {readonly string[]} [options.policies]
 * @param {Record<string, string | number>} options.config
 * @param {() => import("./engine/lab-adapters").ScratchEngine} options.makeEngine
 * @param {number} options.startMs
 */
export function createComparison({ spec, policies = POLICIES, config, makeEngine, startMs }) {
  /** @type {Array<{policy: string, requests: number, hits: number, misses: number, ratio: number | null, evicted: number, oom: number, usedMemory: number, samples: RunSample[]}>} */
  const results = [];
  let index = 0;
  /** @type {{engine: import("./engine/lab-adapters").ScratchEngine, run: WorkloadRun, policy: string} | null} */
  let current = null;
  /** @type {string | null} */
  let failed = null;
  const requests = spec.requests > 0 ? spec.requests : DEFAULT_SPEC.requests;
  const runSpec = { ...spec, requests };

  /** @param {string} policy */
  function begin(policy) {
    const engine = makeEngine();
    /**
     * @param {string} name
     * @param {string | number} value
     */
    const set = (name, value) => {
      const r = engine.command(["CONFIG", "SET", name, String(value)]);
      if (r.reply?.type !== "status") throw new Error(`CONFIG SET ${name} ${value}: ${r.text.trim()}`);
    };
    try {
      set("maxmemory-policy", policy);
      for (const [name, value] of Object.entries(config)) set(name, value);
      engine.drainEvents();
      current = { engine, policy, run: createWorkloadRun(runSpec, engine, { startMs, label: policy }) };
    } catch (err) {
      engine.free(); // not yet `current`: the job's own clean-up would not reach it
      throw err;
    }
    return current;
  }

  function finish() {
    if (current === null) return;
    const { engine, policy, run } = current;
    const st = run.status();
    const stats = engine.info("stats");
    const memory = engine.info("memory");
    results.push({
      policy,
      requests: st.requests,
      hits: st.info.hits,
      misses: st.info.misses,
      ratio: hitRatio(st.samples),
      evicted: Number(stats.evicted_keys) || 0,
      oom: st.counts.oom,
      usedMemory: Number(memory.used_memory) || 0,
      samples: st.samples,
    });
    engine.free();
    current = null;
    index += 1;
  }

  return {
    spec: runSpec,
    policies,
    config,

    /**
     * Works until `deadline` (real ms). Returns true while there is more to do.
     * @param {number} deadline
     * @param {() => number} [realNow]
     */
    work(deadline, realNow = () => performance.now()) {
      try {
        while (index < policies.length) {
          const cur = current ?? begin(policies[index]);
          const r = cur.run.runUntil(Infinity, {
            deadline,
            realNow,
            drainEvery: SCRATCH_DRAIN_EVERY,
            onBatch: () => cur.engine.drainEvents(),
          });
          cur.engine.drainEvents();
          if (cur.run.done()) finish();
          if (r.stoppedShort || realNow() >= deadline) break;
        }
      } catch (err) {
        failed = err instanceof Error ? err.message : String(err);
        current?.engine.free();
        current = null;
        index = policies.length;
      }
      return index < policies.length;
    },

    cancel() {
      current?.engine.free();
      current = null;
      if (index < policies.length) failed = failed ?? "cancelled";
      index = policies.length;
    },

    status() {
      const inRun = current ? current.run.status().requests : 0;
      return {
        spec: runSpec,
        config,
        results: results.slice(),
        running: index < policies.length,
        policy: current?.policy ?? null,
        progress: (index * requests + inRun) / (policies.length * requests),
        failed,
      };
    },
  };
}

/**
 * What the loop drives: at most one live run on the page's engine and one comparison job.
 * `engine` is engine.js's API (command, advanceTo, now, info, drainEvents, createScratchEngine).
 */
/**
 * @param {object} options
 * @param {WorkloadTarget & {drainEvents(): import("./engine/plain").Drain, createScratchEngine(o: {seed?: number, startMs?: number}): import("./engine/lab-adapters").ScratchEngine}} options.engine
 * @param {() => number} [options.realNow]
 */
export function createWorkloadDriver({ engine, realNow = () => performance.now() }) {
  /** @type {(WorkloadRun & {id?: number}) | null} */
  let run = null;
  /** @type {ReturnType<typeof createComparison> | null} */
  let job = null;
  let runs = 0;

  return {
    /**
     * Starts a live run on the page's engine (replacing one in progress).
     * @param {WorkloadSpec} spec
     * @param {{label?: string}} [options]
     */
    start(spec, { label = "" } = {}) {
      run?.stop();
      runs += 1;
      const now = engine.now();
      // Start on a whole second of virtual time: the LRU clock counts seconds, so two runs
      // started after a reset see the same clock phases.
      const startMs = Math.ceil(now / 1000) * 1000;
      const started = Object.assign(createWorkloadRun(spec, engine, { startMs, label }), { id: runs });
      run = started;
      return started;
    },

    stop() {
      run?.stop();
    },

    /** A live run has requests left to do. */
    active() {
      return run !== null && !run.done();
    },

    /**
     * Runs the live run's requests due by `targetMs`, within `deadline` (real ms) and `maxTicks`
     * cron ticks, draining events as it goes: `{events, dropped, unreadable, ticks, stoppedShort}`.
     * @param {number} targetMs
     * @param {{deadline: number, maxTicks: number}} budget
     */
    drive(targetMs, { deadline, maxTicks }) {
      /** @type {import("./engine/plain").Drain["events"]} */
      let events = [];
      let dropped = 0;
      let unreadable = 0;
      const drain = () => {
        const d = engine.drainEvents();
        if (d.events.length > 0) events = events.length === 0 ? d.events : events.concat(d.events);
        dropped += d.dropped;
        unreadable += d.unreadable ? 1 : 0;
      };
      if (run === null) return { events, dropped, unreadable, ticks: 0, stoppedShort: false, requests: 0 };
      const r = run.runUntil(targetMs, { deadline, realNow, maxTicks, drainEvery: PAGE_DRAIN_EVERY, onBatch: drain });
      drain();
      return { events, dropped, unreadable, ticks: r.ticks, stoppedShort: r.stoppedShort, requests: r.requests };
    },

    /**
     * Starts "compare policies" (replacing one in progress).
     * @param {{spec: WorkloadSpec, config: Record<string, string | number>, startMs: number, seed: number}} options
     */
    compare({ spec, config, startMs, seed }) {
      job?.cancel();
      job = createComparison({ spec, config, startMs, makeEngine: () => engine.createScratchEngine({ seed, startMs }) });
      return job;
    },

    cancelCompare() {
      job?.cancel();
    },

    /** A comparison has work left. */
    busy() {
      return job?.status().running === true;
    },

    /**
     * Lets the comparison work until `deadline` (real ms).
     * @param {number} deadline
     */
    work(deadline) {
      if (job === null) return false;
      return job.work(deadline, realNow);
    },

    status() {
      return { run: run ? { id: run.id, ...run.status() } : null, compare: job ? job.status() : null };
    },

    /** Forget the live run (after an engine reset: its counters are gone). */
    forget() {
      run = null;
    },
  };
}
