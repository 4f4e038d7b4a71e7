// @ts-check
// The eviction view's forms: the memory settings (maxmemory, maxmemory-policy,
// maxmemory-samples) and the workload generator (access pattern, skew, keys, rate, requests,
// value size, TTL, seed). DOM only: the parsing is in eviction-forms.js and www/workload.js; bad
// input gets a sentence next to the form and the field is marked, never a thrown error. The
// forms never call the engine: they call the handlers the view gives them.

/** @typedef {import("../workload").WorkloadSpec} WorkloadSpec */
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { DISTRIBUTIONS, TTL_CHOICES, DEFAULT_SPEC, parseWorkloadSpec } from "../workload.js";
import { POLICY_HELP, parseMaxmemory, parseSamples, policyHelp } from "./eviction-forms.js";

export { MAX_SAMPLES_CONTROL, POLICY_HELP, parseMaxmemory, parseSamples } from "./eviction-forms.js";

/**
 * @param {string} id
 * @param {string} value
 * @param {number} size
 * @param {string} label
 * @param {string} [title]
 */
function input(id, value, size, label, title) {
  const node = el("input", "xc-input");
  node.id = id;
  node.type = "text";
  node.value = value;
  node.size = size;
  node.autocomplete = "off";
  node.spellcheck = false;
  node.setAttribute("aria-label", label);
  if (title) node.title = title;
  node.addEventListener("input", () => node.removeAttribute("aria-invalid"));
  return node;
}

/**
 * @param {string} id
 * @param {ReadonlyArray<readonly [string, string, string?]>} options  [value, text, title]
 * @param {string} label
 * @param {string} [title]
 */
function select(id, options, label, title) {
  const node = el("select", "xc-select");
  node.id = id;
  node.setAttribute("aria-label", label);
  if (title) node.title = title;
  for (const [value, text, optTitle] of options) {
    const o = el("option", "", text);
    o.value = value;
    if (optTitle) o.title = optTitle;
    node.append(o);
  }
  return node;
}

/**
 * A form's message line: `say(text, kind)`.
 * @param {string} id
 */
function messageLine(id) {
  const message = el("p", "xc-message");
  message.id = id;
  message.setAttribute("role", "status");
  /**
   * @param {string} text
   * @param {string} [kind]  info, ok or error
   */
  const say = (text, kind = "info") => {
    message.textContent = text;
    message.className = `xc-message is-${kind}`;
  };
  return { message, say };
}

function createMemoryForm() {
  const form = el("form", "xc-row ev-memory-form");
  form.noValidate = true;
  const mmLabel = el("label", "xc-label", "maxmemory ");
  const mm = input("eviction-maxmemory", "0", 8, "maxmemory", t("The limit used_memory is kept under: bytes, or 1600kb, 2mb… (0 = no limit)"));
  mmLabel.append(mm);
  const mmSet = el("button", "btn btn-small", t("Set"));
  mmSet.type = "submit";
  mmSet.id = "eviction-maxmemory-set";
  const suggest = el("button", "btn btn-small btn-quiet", "");
  suggest.type = "button";
  suggest.id = "eviction-maxmemory-suggest";
  suggest.hidden = true;
  const policyLabel = el("label", "xc-label", `${t("policy")} `);
  const policy = select(
    "eviction-policy",
    Object.entries(POLICY_HELP).map(([p, help]) => /** @type {const} */ ([p, p, help])),
    "maxmemory-policy",
    t("maxmemory-policy: which keys may be evicted, and in which order"),
  );
  policyLabel.append(policy);
  const samplesLabel = el("label", "xc-label", `${t("samples")} `);
  const samples = input("eviction-samples", "5", 3, "maxmemory-samples", t("maxmemory-samples: keys sampled per db for each eviction (LRU, LFU, volatile-ttl)"));
  samplesLabel.append(samples);
  const samplesSet = el("button", "btn btn-small", t("Set"));
  samplesSet.type = "button";
  samplesSet.id = "eviction-samples-set";
  form.append(mmLabel, mmSet, suggest, policyLabel, samplesLabel, samplesSet);
  return { form, mm, suggest, policy, samples, samplesSet };
}

/**
 * The memory settings.
 * @param {HTMLElement} root
 * @param {{config(name: string, value: string): void, suggest(): string|null}} handlers
 */
export function createMemoryControls(root, handlers) {
  root.replaceChildren();
  const { form, mm, suggest, policy, samples, samplesSet } = createMemoryForm();
  const help = el("p", "ev-policy-help");
  help.id = "eviction-policy-help";
  const { message, say } = messageLine("eviction-controls-message");
  root.append(form, help, message);

  /**
   * @param {HTMLInputElement} node
   * @param {string} text
   */
  function invalid(node, text) {
    node.setAttribute("aria-invalid", "true");
    say(text, "error");
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const r = parseMaxmemory(mm.value);
    if (!r.ok) return invalid(mm, r.message);
    mm.removeAttribute("aria-invalid");
    handlers.config("maxmemory", r.value);
  });
  suggest.addEventListener("click", () => {
    const value = handlers.suggest();
    if (value) {
      mm.value = value;
      form.requestSubmit();
    }
  });
  policy.addEventListener("change", () => handlers.config("maxmemory-policy", policy.value));
  const setSamples = () => {
    const r = parseSamples(samples.value);
    if (!r.ok) return invalid(samples, r.message);
    samples.removeAttribute("aria-invalid");
    handlers.config("maxmemory-samples", String(r.value));
  };
  samplesSet.addEventListener("click", setSamples);
  samples.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      setSamples();
    }
  });

  /** @type {{maxmemory?: string, policy?: string, samples?: string, suggestion?: string}} */
  let shown = {};
  return {
    /**
     * Shows the engine's values; an input being edited is left alone.
     * @param {{maxmemory?: string, policy?: string, samples?: string, suggestion?: string}} values
     */
    setValues({ maxmemory, policy: p, samples: s, suggestion }) {
      if (maxmemory !== undefined && shown.maxmemory !== maxmemory && document.activeElement !== mm) {
        shown.maxmemory = maxmemory;
        mm.value = String(maxmemory);
        mm.removeAttribute("aria-invalid");
      }
      if (p !== undefined && shown.policy !== p) {
        shown.policy = p;
        policy.value = p;
        help.textContent = policyHelp(p);
      }
      if (s !== undefined && shown.samples !== s && document.activeElement !== samples) {
        shown.samples = s;
        samples.value = String(s);
        samples.removeAttribute("aria-invalid");
      }
      if (suggestion !== undefined && shown.suggestion !== suggestion) {
        shown.suggestion = suggestion;
        suggest.hidden = !suggestion;
        suggest.textContent = suggestion ? t("Use {value}", { value: suggestion }) : "";
        suggest.title = suggestion
          ? t("Set maxmemory to {value}: room for a few thousand of the workload's keys above what the server uses now", { value: suggestion })
          : "";
      }
    },
    say,
    forget() {
      shown = {};
    },
  };
}

/** The workload form's fields, in three rows. */
function createWorkloadForm() {
  const form = el("form", "ev-workload-form");
  form.noValidate = true;
  form.id = "eviction-workload";

  const row1 = el("div", "xc-row");
  const dist = select(
    "eviction-wl-dist",
    DISTRIBUTIONS.map((d) => /** @type {const} */ ([d.id, d.label])),
    t("Access pattern"),
  );
  dist.title = t("Which keys the client asks for");
  const skewLabel = el("label", "xc-label", `${t("skew")} `);
  const skew = input("eviction-wl-skew", String(DEFAULT_SPEC.skew.toFixed(1)), 3, t("Zipf skew"), t("Zipf exponent s: key k is asked for with probability ∝ 1/k^s"));
  skewLabel.append(skew);
  const keysLabel = el("label", "xc-label", t("keys "));
  const keys = input("eviction-wl-keys", String(DEFAULT_SPEC.keys), 7, t("Distinct keys"), t("How many distinct keys the client asks for (key:0 … key:N−1)"));
  keysLabel.append(keys);
  const rateLabel = el("label", "xc-label", `${t("rate")} `);
  const rate = input("eviction-wl-rate", String(DEFAULT_SPEC.rate), 6, t("Requests per second of virtual time"));
  rateLabel.append(rate, document.createTextNode(" req/s"));
  const reqLabel = el("label", "xc-label", `${t("requests")} `);
  const requests = input("eviction-wl-requests", String(DEFAULT_SPEC.requests), 7, t("Requests to run (0: until stopped)"));
  reqLabel.append(requests);
  row1.append(dist, skewLabel, keysLabel, rateLabel, reqLabel);

  const row2 = el("div", "xc-row");
  const valueLabel = el("label", "xc-label", `${t("value")} `);
  const value = input("eviction-wl-value", String(DEFAULT_SPEC.valueBytes), 5, t("Value size in bytes"));
  valueLabel.append(value, document.createTextNode(" B"));
  const ttlLabel = el("label", "xc-label", "TTL ");
  const ttl = select(
    "eviction-wl-ttl",
    TTL_CHOICES.map((c) => /** @type {const} */ ([c.id, c.label, c.title])),
    t("TTL of the keys it sets"),
  );
  ttl.title = t("volatile-* policies evict only keys with a TTL");
  ttlLabel.append(ttl);
  const seedLabel = el("label", "xc-label", `${t("seed")} `);
  const seed = input("eviction-wl-seed", String(DEFAULT_SPEC.seed), 5, t("Workload seed"), t("The same seed asks for the same keys at the same virtual times"));
  seedLabel.append(seed);
  const flushLabel = el("label", "xc-label ev-check");
  const flush = el("input");
  flush.type = "checkbox";
  flush.id = "eviction-wl-flush";
  // Unticked: a run never wipes keys made in the console unless asked to.
  flush.checked = false;
  flushLabel.title = t("Start from an empty server (FLUSHALL), so runs under different policies start alike");
  flushLabel.append(flush, document.createTextNode(` ${t("FLUSHALL first")}`));
  row2.append(valueLabel, ttlLabel, seedLabel, flushLabel);

  const row3 = el("div", "xc-row");
  const start = el("button", "btn btn-small btn-go", t("▶ Start"));
  start.type = "submit";
  start.id = "eviction-wl-start";
  const stop = el("button", "btn btn-small", t("■ Stop"));
  stop.type = "button";
  stop.id = "eviction-wl-stop";
  stop.disabled = true;
  const compare = el("button", "btn btn-small", t("Compare policies"));
  compare.type = "button";
  compare.id = "eviction-wl-compare";
  compare.title = t("Run this workload once per policy, each on a fresh engine with this page's maxmemory and samples, and show the hit ratios side by side");
  const cancel = el("button", "btn btn-small btn-quiet", t("Cancel"));
  cancel.type = "button";
  cancel.id = "eviction-wl-cancel";
  cancel.hidden = true;
  row3.append(start, stop, compare, cancel);

  form.append(row1, row2, row3);
  const fields = { distribution: dist, skew, keys, rate, requests, valueBytes: value, ttl, seed };
  return { form, fields, skewLabel, keysLabel, flush, start, stop, compare, cancel };
}

/**
 * The workload form.
 * @param {HTMLElement} root
 * @param {{start(spec: WorkloadSpec): void, stop(): void, compare(spec: WorkloadSpec): void, cancelCompare(): void}} handlers
 */
export function createWorkloadControls(root, handlers) {
  root.replaceChildren();
  const { form, fields, skewLabel, keysLabel, flush, start, stop, compare, cancel } = createWorkloadForm();
  const { message, say } = messageLine("eviction-workload-message");
  root.append(form, message);
  const { distribution: dist, skew, keys } = fields;

  /** @returns {WorkloadSpec | null} the spec, or null (the message says what is wrong) */
  function read() {
    const r = parseWorkloadSpec({
      distribution: dist.value,
      skew: skew.value,
      keys: keys.value,
      rate: fields.rate.value,
      requests: fields.requests.value,
      valueBytes: fields.valueBytes.value,
      ttl: fields.ttl.value,
      seed: fields.seed.value,
      flush: flush.checked,
    });
    if (!r.ok) {
      /** @type {Record<string, HTMLElement | undefined>} */ (fields)[r.field]?.setAttribute("aria-invalid", "true");
      say(r.message, "error");
      return null;
    }
    for (const f of Object.values(fields)) f.removeAttribute?.("aria-invalid");
    return r.value;
  }

  const syncSkew = () => {
    skewLabel.classList.toggle("is-disabled", dist.value !== "zipf");
    skew.disabled = dist.value !== "zipf";
    keys.disabled = dist.value === "new";
    keysLabel.classList.toggle("is-disabled", dist.value === "new");
  };
  dist.addEventListener("change", syncSkew);
  syncSkew();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const spec = read();
    if (spec) handlers.start(spec);
  });
  stop.addEventListener("click", () => handlers.stop());
  compare.addEventListener("click", () => {
    const spec = read();
    if (spec) handlers.compare(spec);
  });
  cancel.addEventListener("click", () => handlers.cancelCompare());

  return {
    say,
    /**
     * Buttons follow what runs: a live run, a comparison.
     * @param {{live: boolean, comparing: boolean}} running
     */
    setRunning({ live, comparing }) {
      stop.disabled = !live;
      start.textContent = live ? t("▶ Restart") : t("▶ Start");
      compare.disabled = comparing;
      cancel.hidden = !comparing;
    },
  };
}
