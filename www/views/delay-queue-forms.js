// @ts-check
// The delay-queue lab's form as data: its fields — strategy (and a second one to compare),
// consumers, poll interval, LIMIT, work time, RTT, the order producer (rate, delay, payments),
// duration, the crash schedule, seed, hz, extra volatile keys and XAUTOCLAIM's idle time — their parsers, the defaults
// and the presets (among them the seeds' walkthrough), and durations as typed. Pure: no DOM;
// bad input gives a sentence per field, never a thrown error. delay-queue-controls.js shows it.

import { number } from "../format.js";
import { t } from "../i18n.js";

/**
 * @template T
 * @typedef {{ok: true, value: T} | {ok: false, message: string}} Parsed
 */
/** @typedef {{consumer: number, atMs: number, forMs: number}} CrashSpec */
/** @typedef {{atMs: number, delayMs: number}} OrderSpec */
/**
 * A form field: its config key, label, input size, parser and tooltip; `producer` fields are
 * replaced by a preset's explicit orders.
 * @typedef {{key: string, label: string, size: number, parse: (text: string) => Parsed<number>, title: string, producer?: boolean}} Field
 */
/** @typedef {Record<string, string | number | boolean | undefined>} FormValues */
/**
 * @typedef {{id: string, label: string, form: FormValues, extra?: {orders: OrderSpec[], startMs: number}, note: string}} Preset
 */

/** Unix ms of 2025-01-01 00:00:00 UTC: the lab's default t = 0 (the API's default startMs). */
export const DEFAULT_START_MS = 1735689600000;
/** 12:00 UTC the same day: where the walkthrough's clock starts. */
export const WALKTHROUGH_START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);

export const MAX_CONSUMERS = 16;
/** Orders one run may create (the lab's MAX_ORDERS). */
export const MAX_ORDERS = 200_000;

/** @type {Record<string, number>} */
const UNITS = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * A duration as typed → ms, or null. `500`, `500ms`, `1.5s`, `30m`, `1h30m`; a bare number is
 * in `defaultUnit`.
 * @param {unknown} text
 * @param {string} [defaultUnit]  ms, s, m or h
 * @returns {number | null}
 */
export function parseDuration(text, defaultUnit = "ms") {
  const t = String(text).trim().toLowerCase().replace(/\s+/g, "");
  if (t === "") return null;
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * UNITS[defaultUnit]);
  if (!/^(\d+(\.\d+)?(ms|s|min|m|h))+$/.test(t)) return null;
  let ms = 0;
  for (const [, n, , unit] of t.matchAll(/(\d+(\.\d+)?)(ms|s|min|m|h)/g)) ms += Number(n) * UNITS[unit];
  return Math.round(ms);
}

/**
 * ms → the shortest readable duration the parser reads back: 1800000 → "30m", 1500 → "1.5s".
 * @param {unknown} ms
 */
export function formatDuration(ms) {
  const n = Number(ms);
  if (!Number.isFinite(n)) return "";
  if (n !== 0 && n % 3_600_000 === 0) return `${n / 3_600_000}h`;
  if (n !== 0 && n % 60_000 === 0) return `${n / 60_000}m`;
  if (n >= 1000 && n % 100 === 0) return `${n / 1000}s`;
  return `${n}ms`;
}

/** @param {unknown} text */
function wholeNumber(text) {
  const t = String(text).trim().replace(/[_,]/g, "");
  return /^\d{1,16}$/.test(t) ? Number(t) : Number.NaN;
}

/** @param {unknown} text */
function decimal(text) {
  const t = String(text).trim();
  return /^(\d+(\.\d*)?|\.\d+)$/.test(t) ? Number(t) : Number.NaN;
}

// -------------------------------------------------------------------------------------------
// One parser per field: text → {ok, value} or {ok: false, message}
// -------------------------------------------------------------------------------------------

// Labels and examples are functions: the words are looked up when a message is made (in the
// page's language), not when this module loads.

/**
 * @param {() => string} label
 * @param {number} min
 * @param {number} max
 * @returns {(text: string) => Parsed<number>}
 */
function intField(label, min, max) {
  return (text) => {
    const n = wholeNumber(text);
    if (!(n >= min && n <= max)) {
      return { ok: false, message: t("{label}: a whole number from {min} to {max}.", { label: label(), min: number(min), max: number(max) }) };
    }
    return { ok: true, value: n };
  };
}

/**
 * @param {() => string} label
 * @param {number} min
 * @param {number} max
 * @param {string} defaultUnit
 * @param {() => string} example
 * @returns {(text: string) => Parsed<number>}
 */
function durationField(label, min, max, defaultUnit, example) {
  return (text) => {
    const ms = parseDuration(text, defaultUnit);
    if (ms === null) {
      const unit = defaultUnit === "ms" ? t("milliseconds") : defaultUnit === "s" ? t("seconds") : t("minutes");
      return { ok: false, message: t("{label}: a duration like {example} (units ms, s, m, h; a bare number is {unit}).", { label: label(), example: example(), unit }) };
    }
    if (!(ms >= min && ms <= max)) {
      return { ok: false, message: t("{label}: from {min} to {max}.", { label: label(), min: formatDuration(min), max: formatDuration(max) }) };
    }
    return { ok: true, value: ms };
  };
}

/**
 * `crash consumer 2 at 10m for 5m; consumer 1 at 40m for 30s` → [{consumer (0-based), atMs, forMs}].
 * @param {unknown} text
 * @param {{consumers?: number, durationMs?: number}} [limits]
 * @returns {Parsed<CrashSpec[]>}
 */
export function parseCrashes(text, { consumers = MAX_CONSUMERS, durationMs = Number.POSITIVE_INFINITY } = {}) {
  const all = String(text).trim();
  if (all === "") return { ok: true, value: [] };
  const parts = all
    .split(/[;\n]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  /** @type {CrashSpec[]} */
  const out = [];
  for (const part of parts) {
    const m = /^(?:crash\s+)?(?:consumer\s*|c)(\d{1,3})\s+at\s+(\S+)\s+for\s+(\S+)$/i.exec(part);
    if (!m) {
      return {
        ok: false,
        message: t("crashes: \"{part}\" is not \"consumer N at T for D\" (e.g. consumer 1 at 10m for 5m; several separated by \";\").", { part: part.slice(0, 40) }),
      };
    }
    const n = Number(m[1]);
    const atMs = parseDuration(m[2], "s");
    const forMs = parseDuration(m[3], "s");
    if (!(n >= 1 && n <= consumers)) {
      return { ok: false, message: t("crashes: consumer {n} does not exist — consumers are numbered 1 to {max}.", { n, max: consumers }) };
    }
    if (atMs === null || forMs === null) {
      return { ok: false, message: t("crashes: in \"{part}\", T and D are durations like 90s, 10m or 1h.", { part: part.slice(0, 40) }) };
    }
    if (forMs < 1) return { ok: false, message: t("crashes: consumer {n} must stay down at least 1 ms.", { n }) };
    if (atMs > durationMs) {
      return {
        ok: false,
        message: t("crashes: consumer {n} at {at} is after the end of the run ({end}).", { n, at: formatDuration(atMs), end: formatDuration(durationMs) }),
      };
    }
    out.push({ consumer: n - 1, atMs, forMs });
  }
  return { ok: true, value: out };
}

/**
 * Text of a crash schedule (0-based consumers in, 1-based out).
 * @param {readonly CrashSpec[] | null | undefined} crashes
 */
export function formatCrashes(crashes) {
  return (crashes ?? []).map((c) => `consumer ${c.consumer + 1} at ${formatDuration(c.atMs)} for ${formatDuration(c.forMs)}`).join("; ");
}

/**
 * The share of orders paid: 0…1 or a percentage.
 * @param {unknown} text
 * @returns {Parsed<number>}
 */
export function parsePayProb(text) {
  const v = String(text).trim();
  const pct = /%$/.test(v);
  const n = decimal(pct ? v.slice(0, -1).trim() : v);
  const p = pct ? n / 100 : n;
  if (!(p >= 0 && p <= 1)) {
    return { ok: false, message: t("paid: a probability from 0 to 1 (or a percentage like 50%).") };
  }
  return { ok: true, value: p };
}

/**
 * The failure rate: a probability or a percentage.
 * @param {unknown} text
 * @returns {Parsed<number>}
 */
export function parseFailProb(text) {
  const v = String(text).trim();
  const pct = /%$/.test(v);
  const n = decimal(pct ? v.slice(0, -1).trim() : v);
  const p = pct ? n / 100 : n;
  if (!(p >= 0 && p <= 1)) {
    return { ok: false, message: t("fail rate: a probability from 0 to 1 (or a percentage like 10%).") };
  }
  return { ok: true, value: p };
}

/**
 * Orders per virtual second.
 * @param {unknown} text
 * @returns {Parsed<number>}
 */
export function parseRate(text) {
  const n = decimal(text);
  if (!(n > 0 && n <= 100)) {
    return { ok: false, message: t("orders/s: a rate above 0 and at most 100 orders per virtual second (e.g. 1 or 0.2).") };
  }
  return { ok: true, value: n };
}

/**
 * The form's fields: id suffix, label, the config key, parser, title. Order = the form's order.
 * The crash schedule is parsed apart (against the consumers and the duration).
 * @type {readonly Field[]}
 */
export const FIELDS = Object.freeze([
  {
    key: "consumers",
    get label() {
      return t("consumers");
    },
    size: 3,
    parse: intField(() => t("consumers"), 1, MAX_CONSUMERS),
    get title() {
      return t("How many consumer processes run the strategy's loop, each its own client");
    },
  },
  {
    key: "pollMs",
    get label() {
      return t("poll every");
    },
    size: 6,
    parse: durationField(() => t("poll every"), 1, 600_000, "ms", () => t("1000, 200ms or 1s")),
    get title() {
      return t("How long a consumer sleeps after an empty poll (strategies 1–3 and 6; 5 sleeps until the earliest due task)");
    },
  },
  {
    key: "limit",
    label: "LIMIT",
    size: 4,
    parse: intField(() => "LIMIT", 1, 1000),
    get title() {
      return t("The batch size: ZRANGEBYSCORE … LIMIT 0 n (and the Lua pop's)");
    },
  },
  {
    key: "workMs",
    get label() {
      return t("work");
    },
    size: 6,
    parse: durationField(() => t("work"), 0, 600_000, "ms", () => t("20 or 20ms")),
    get title() {
      return t("How long processing one task takes (closing the order)");
    },
  },
  {
    key: "rttMs",
    label: "RTT",
    size: 5,
    parse: durationField(() => "RTT", 0, 10_000, "ms", () => t("2 or 2ms")),
    get title() {
      return t("Network round trip per command: half to reach Redis, half for the reply");
    },
  },
  {
    key: "ratePerS",
    get label() {
      return t("orders/s");
    },
    size: 5,
    parse: parseRate,
    get title() {
      return t("New orders per virtual second (a Poisson process)");
    },
    producer: true,
  },
  {
    key: "delayMs",
    get label() {
      return t("delay");
    },
    size: 6,
    parse: durationField(() => t("delay"), 0, 7 * 86_400_000, "m", () => "30m"),
    get title() {
      return t("An order is due this long after it is created (close it if unpaid)");
    },
    producer: true,
  },
  {
    key: "payProb",
    get label() {
      return t("share paid");
    },
    size: 5,
    parse: parsePayProb,
    get title() {
      return t("Probability that an order is paid (the payment removes its task)");
    },
    producer: true,
  },
  {
    key: "payMeanMs",
    get label() {
      return t("pays after ~");
    },
    size: 6,
    parse: durationField(() => t("pays after"), 1, 7 * 86_400_000, "m", () => "10m"),
    get title() {
      return t("Mean time from order to payment, for the orders that are paid");
    },
    producer: true,
  },
  {
    key: "durationMs",
    get label() {
      return t("duration");
    },
    size: 6,
    parse: durationField(() => t("duration"), 1000, 24 * 3_600_000, "m", () => t("1h or 90m")),
    get title() {
      return t("Virtual time the run lasts");
    },
  },
  {
    key: "seed",
    get label() {
      return t("seed");
    },
    size: 8,
    parse: intField(() => t("seed"), 0, 4_294_967_295),
    get title() {
      return t("Same seed and settings → the same run");
    },
  },
  {
    key: "hz",
    label: "hz",
    size: 3,
    parse: intField(() => "hz", 1, 500),
    get title() {
      return t("The lab engine's server hz: how often its cron runs the active expire cycle (strategy 4's lateness)");
    },
  },
  {
    key: "volatileKeys",
    get label() {
      return t("extra TTL keys");
    },
    size: 7,
    parse: intField(() => t("extra TTL keys"), 0, 200_000),
    get title() {
      return t("Other keys with long TTLs in the lab's engine: the expire cycle samples them too (strategy 4)");
    },
  },
  {
    key: "failProb",
    get label() {
      return t("fail rate");
    },
    size: 4,
    parse: parseFailProb,
    get title() {
      return t("The chance that one processing fails and the task is retried");
    },
  },
  {
    key: "maxTries",
    get label() {
      return t("max tries");
    },
    size: 3,
    parse: intField(() => t("max tries"), 1, 100),
    get title() {
      return t("Processings a task gets before it goes to the dead-letter set");
    },
  },
  {
    key: "backoffMs",
    get label() {
      return t("backoff");
    },
    size: 6,
    parse: durationField(() => t("backoff"), 0, 86_400_000, "ms", () => t("10000, 10s or 1m")),
    get title() {
      return t("The first retry's delay, doubling with each failure (strategy 6 retries through XAUTOCLAIM after the claim time)");
    },
  },
  {
    key: "claimIdleMs",
    get label() {
      return t("claim after");
    },
    size: 6,
    parse: durationField(() => t("claim after"), 1, 86_400_000, "ms", () => t("30000, 30s or 1m")),
    get title() {
      return t("Strategy 6: XAUTOCLAIM's min-idle-time — a task read but not acknowledged for this long is taken over by another consumer");
    },
  },
]);

export const STRATEGY_NUMBERS = /** @type {readonly number[]} */ (Object.freeze([1, 2, 3, 4, 5, 6]));

/**
 * The defaults of the API contract, as the form shows them.
 * @type {Readonly<FormValues>}
 */
export const DEFAULT_FORM = Object.freeze({
  strategy: 1,
  compare: false,
  compareStrategy: 2,
  consumers: "2",
  pollMs: "1000ms",
  limit: "10",
  workMs: "20ms",
  rttMs: "2ms",
  ratePerS: "1",
  delayMs: "30m",
  payProb: "0.5",
  payMeanMs: "10m",
  durationMs: "1h",
  crashes: "",
  seed: "1",
  hz: "10",
  volatileKeys: "0",
  claimIdleMs: "30s",
  failProb: "0",
  maxTries: "3",
  backoffMs: "10s",
});

/**
 * Presets: form values plus what only a preset can set (explicit orders, the start time).
 * The walkthrough is the seeds' own example: one order at 12:00, due 12:30, polled every second.
 * @type {readonly Preset[]}
 */
export const PRESETS = Object.freeze([
  {
    id: "walkthrough",
    get label() {
      return t("Walkthrough: one order at 12:00, due 12:30, polled every second");
    },
    form: { strategy: 1, compare: false, consumers: "1", pollMs: "1000ms", limit: "10", workMs: "20ms", rttMs: "2ms", durationMs: "31m", seed: "1", hz: "10", volatileKeys: "0", crashes: "" },
    extra: { orders: [{ atMs: 0, delayMs: 1_800_000 }], startMs: WALKTHROUGH_START_MS },
    get note() {
      return t("One order, created at 12:00:00 and due at 12:30:00; one consumer polls every second. Step through it, or skip to just before 12:30 and step from there.");
    },
  },
  {
    id: "race",
    get label() {
      return t("Race: two consumers, naive polling (duplicates) vs ZREM check");
    },
    form: { strategy: 2, compare: true, compareStrategy: 1, consumers: "2", pollMs: "1000ms", limit: "10", workMs: "50ms", rttMs: "5ms", ratePerS: "2", delayMs: "1m", payProb: "0.3", payMeanMs: "30s", durationMs: "10m", seed: "7", hz: "10", volatileKeys: "0", crashes: "" },
    get note() {
      return t("Both consumers see the same due tasks; the naive one processes before it removes.");
    },
  },
  {
    id: "crash",
    get label() {
      return t("Crash: keyspace notifications lose what expires while the consumer is down");
    },
    form: { strategy: 4, compare: true, compareStrategy: 3, consumers: "1", pollMs: "1000ms", limit: "10", workMs: "20ms", rttMs: "2ms", ratePerS: "1", delayMs: "2m", payProb: "0.3", payMeanMs: "1m", durationMs: "15m", seed: "3", hz: "10", volatileKeys: "0", crashes: "consumer 1 at 5m for 3m" },
    get note() {
      return t("Pub/sub is fire-and-forget: an expired event published while the consumer is down is gone.");
    },
  },
  {
    id: "wakeup",
    get label() {
      return t("Cost: pub/sub wake-up vs polling every 200 ms");
    },
    form: { strategy: 5, compare: true, compareStrategy: 1, consumers: "2", pollMs: "200ms", limit: "10", workMs: "20ms", rttMs: "2ms", ratePerS: "0.5", delayMs: "5m", payProb: "0.5", payMeanMs: "2m", durationMs: "30m", seed: "11", hz: "10", volatileKeys: "0", crashes: "" },
    get note() {
      return t("Compare the commands per second and the empty polls.");
    },
  },
  {
    id: "stream-crash",
    get label() {
      return t("Crash: a stream consumer group (XAUTOCLAIM) vs the Lua pop");
    },
    form: { strategy: 6, compare: true, compareStrategy: 3, consumers: "2", pollMs: "1000ms", limit: "10", workMs: "2s", rttMs: "2ms", ratePerS: "1", delayMs: "2m", payProb: "0.3", payMeanMs: "1m", durationMs: "15m", seed: "3", hz: "10", volatileKeys: "0", crashes: "consumer 1 at 5m for 5m", claimIdleMs: "30s" },
    get note() {
      return t("The crashed consumer's tasks stay pending in the group until XACK: after 30 s idle the other consumer's XAUTOCLAIM takes them over (late, not lost). The Lua pop had removed them: lost.");
    },
  },
]);

/**
 * Form values (strings, as typed) → `{ok, config, compareStrategy|null, errors: {key: message}}`.
 * `extra` (orders, startMs) comes from a preset and is merged in unchanged.
 * @param {FormValues} values
 * @param {{orders?: readonly OrderSpec[], startMs?: number}} [extra]
 */
export function parseForm(values, extra = {}) {
  /** @type {Record<string, string>} */
  const errors = {};
  /** @type {Record<string, any>} */
  const config = {};
  const strategy = Number(values.strategy);
  if (!STRATEGY_NUMBERS.includes(strategy)) errors.strategy = t("strategy: pick one of 1 to 6.");
  else config.strategy = strategy;
  for (const f of FIELDS) {
    if (f.producer && extra.orders) continue;
    const r = f.parse(String(values[f.key] ?? ""));
    if (r.ok) config[f.key] = r.value;
    else errors[f.key] = r.message;
  }
  const crashes = parseCrashes(values.crashes ?? "", {
    consumers: config.consumers ?? MAX_CONSUMERS,
    durationMs: config.durationMs ?? Number.POSITIVE_INFINITY,
  });
  if (crashes.ok) config.crashes = crashes.value;
  else errors.crashes = crashes.message;
  if (!extra.orders && config.ratePerS !== undefined && config.durationMs !== undefined) {
    const orders = (config.ratePerS * config.durationMs) / 1000;
    if (orders > MAX_ORDERS) {
      errors.ratePerS = t("orders/s: {rate} a second for {duration} is about {orders} orders; the lab takes at most {max} a run.", {
        rate: config.ratePerS,
        duration: formatDuration(config.durationMs),
        orders: number(Math.round(orders)),
        max: number(MAX_ORDERS),
      });
    }
  }
  /** @type {number | null} */
  let compareStrategy = null;
  if (values.compare) {
    compareStrategy = Number(values.compareStrategy);
    if (!STRATEGY_NUMBERS.includes(compareStrategy)) {
      errors.compareStrategy = t("compare with: pick one of 1 to 6.");
      compareStrategy = null;
    }
  }
  if (extra.orders) config.orders = extra.orders.map((o) => ({ ...o }));
  if (extra.startMs !== undefined) config.startMs = extra.startMs;
  return { ok: Object.keys(errors).length === 0, config, compareStrategy, errors };
}

/**
 * The note under the fields when a preset brings explicit orders.
 * @param {readonly OrderSpec[]} orders
 */
export function ordersNote(orders) {
  const list = orders.map((o) => t("one at +{at}, due {delay} later", { at: formatDuration(o.atMs), delay: formatDuration(o.delayMs) }));
  return t("Explicit orders instead of the random producer: {orders}.", { orders: list.join(t("; ")) });
}

/**
 * The form's message when fields need fixing.
 * @param {number} count  fields with an error
 */
export const notRunMessage = (count) => (count === 1 ? t("Not run: one field needs fixing (marked above).") : t("Not run: {n} fields need fixing (marked above).", { n: count }));
