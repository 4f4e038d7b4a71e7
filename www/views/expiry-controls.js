// The expiry view's controls: the config parameters that shape the active expire cycle (hz,
// active-expire-effort, the playground's algorithm switch) and a form that fills the current db
// with keys whose TTLs are drawn from the engine's seeded RNG. Parsing is pure and exported;
// bad input gets a sentence next to the form, never a thrown error. The controls never call the
// engine: they call the handlers the view gives them.

import { number } from "./expiry-cycle.js";

export const MAX_POPULATE = 1_000_000;
export const MAX_TTL_SECONDS = 365 * 86_400;
/** How many long-lived keys one press of the button adds, and their TTL range. */
export const LONG_LIVED = Object.freeze({ count: 10_000, minMs: 3_600_000, maxMs: 7_200_000 });

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** `hz` as typed → `{ok, value}` or `{ok: false, message}`. */
export function parseHz(text) {
  const t = String(text).trim();
  const n = /^\d{1,4}$/.test(t) ? Number(t) : NaN;
  if (!(n >= 1 && n <= 500)) {
    return { ok: false, message: "hz is a whole number from 1 to 500 (Redis's limits); the default is 10." };
  }
  return { ok: true, value: n };
}

/** A key count: "100000", "100,000", "1e5", "100k", "1M" → `{ok, value}`. */
export function parseCount(text, max = MAX_POPULATE) {
  const t = String(text).trim().replace(/[,_ ]/g, "");
  let n = NaN;
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(t);
  if (m) n = Number(m[1]) * (m[2] === "" ? 1 : /k/i.test(m[2]) ? 1e3 : 1e6);
  else if (/^\d+(\.\d+)?e\d+$/i.test(t)) n = Number(t);
  if (!(Number.isInteger(n) && n >= 1 && n <= max)) {
    return { ok: false, message: `How many keys: a whole number from 1 to ${number(max)} (100k and 1e5 work too).` };
  }
  return { ok: true, value: n };
}

/** Seconds as typed ("1", "0.5", "60") → `{ok, ms}`. */
export function parseSeconds(text, what) {
  const t = String(text).trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) return { ok: false, message: `${what}: a number of seconds, like 1 or 0.5.` };
  const s = Number(t);
  const ms = Math.round(s * 1000);
  if (!(ms >= 1) || s > MAX_TTL_SECONDS) {
    return { ok: false, message: `${what}: between 0.001 and ${number(MAX_TTL_SECONDS)} seconds (one year).` };
  }
  return { ok: true, ms };
}

/** The whole populate form → `{ok, value: {count, prefix, minMs, maxMs, distribution}}` or a message. */
export function parsePopulate({ count, prefix, min, max, distribution }) {
  const c = parseCount(count);
  if (!c.ok) return c;
  const p = String(prefix);
  if (p.length === 0 || p.length > 64) return { ok: false, message: "Key prefix: 1 to 64 characters, like k: or session:." };
  const lo = parseSeconds(min, "Shortest TTL");
  if (!lo.ok) return lo;
  const hi = parseSeconds(max, "Longest TTL");
  if (!hi.ok) return hi;
  if (lo.ms > hi.ms) return { ok: false, message: "The shortest TTL is longer than the longest: swap them." };
  if (distribution !== "uniform" && distribution !== "exponential") {
    return { ok: false, message: "Distribution: uniform or exponential." };
  }
  return { ok: true, value: { count: c.value, prefix: p, minMs: lo.ms, maxMs: hi.ms, distribution } };
}

/**
 * @param {HTMLElement} root
 * @param {object} handlers
 * @param {(name: string, value: string) => void} handlers.config     set one config parameter
 * @param {(p: {count: number, prefix: string, minMs: number, maxMs: number, distribution: string}) => void} handlers.populate
 * @param {() => void} handlers.longLived
 */
export function createExpiryControls(root, handlers) {
  root.replaceChildren();

  // Config: hz, effort, algorithm.
  const config = el("form", "xc-row xc-config");
  config.noValidate = true;
  const hzLabel = el("label", "xc-label", "hz ");
  const hzInput = el("input", "xc-input xc-hz");
  hzInput.id = "expiry-hz";
  hzInput.type = "text";
  hzInput.inputMode = "numeric";
  hzInput.size = 4;
  hzInput.autocomplete = "off";
  hzInput.title = "serverCron runs hz times per (virtual) second; each run is one slow expire cycle";
  hzLabel.append(hzInput);
  const hzSet = el("button", "btn btn-small", "Set");
  hzSet.type = "submit";
  hzSet.id = "expiry-hz-set";

  const effortLabel = el("label", "xc-label", "effort ");
  const effort = el("select", "xc-select");
  effort.id = "expiry-effort";
  effort.title = "active-expire-effort, 1 (default) … 10: more keys per loop, a lower stale threshold, a bigger CPU budget (7.0 only)";
  effortLabel.title = effort.title;
  for (let i = 1; i <= 10; i += 1) {
    const o = el("option", "", String(i));
    o.value = String(i);
    effort.append(o);
  }
  effortLabel.append(effort);

  const algo = el("fieldset", "xc-algo");
  algo.append(el("legend", "xc-legend", "algorithm"));
  const radios = {};
  for (const [value, text, title] of [
    ["7.0", "7.0 (cursor)", "Redis 7.0: walks the expires table bucket by bucket from a cursor"],
    ["classic", "classic ≤5.0 (random)", "Redis ≤5.0, as tutorials describe it: 20 random keys, repeat while more than 5 were expired"],
  ]) {
    const label = el("label", "xc-radio");
    label.title = title;
    const r = el("input");
    r.type = "radio";
    r.name = "expiry-algorithm";
    r.value = value;
    r.id = value === "7.0" ? "expiry-algo-70" : "expiry-algo-classic";
    label.append(r, document.createTextNode(` ${text}`));
    algo.append(label);
    radios[value] = r;
  }
  config.append(hzLabel, hzSet, effortLabel, algo);

  // Populate.
  const pop = el("form", "xc-row xc-populate");
  pop.noValidate = true;
  pop.id = "expiry-populate";
  const field = (id, value, size, label, title) => {
    const input = el("input", "xc-input");
    input.id = id;
    input.type = "text";
    input.value = value;
    input.size = size;
    input.autocomplete = "off";
    input.spellcheck = false;
    input.setAttribute("aria-label", label);
    if (title) input.title = title;
    return input;
  };
  const countInput = field("expiry-pop-count", "100000", 7, "How many keys", "up to 1,000,000 per press");
  const prefixInput = field("expiry-pop-prefix", "k:", 4, "Key prefix", "keys are named <prefix>0, <prefix>1, …; existing names are skipped");
  const minInput = field("expiry-pop-min", "1", 3, "Shortest TTL in seconds");
  const maxInput = field("expiry-pop-max", "60", 3, "Longest TTL in seconds");
  const dist = el("select", "xc-select");
  dist.id = "expiry-pop-dist";
  dist.setAttribute("aria-label", "TTL distribution");
  dist.title = "uniform: TTLs spread evenly over the range; exponential: most near the shortest, a long tail";
  for (const [v, t] of [
    ["uniform", "uniform"],
    ["exponential", "exponential"],
  ]) {
    const o = el("option", "", t);
    o.value = v;
    dist.append(o);
  }
  const popButton = el("button", "btn btn-small", "Populate");
  popButton.type = "submit";
  popButton.id = "expiry-pop-go";
  const longButton = el("button", "btn btn-small", `+${number(LONG_LIVED.count / 1000)}k long-lived`);
  longButton.type = "button";
  longButton.id = "expiry-pop-long";
  longButton.title =
    `${number(LONG_LIVED.count)} keys with a TTL of 1–2 hours: they fill the expires table, so the cycle examines more live keys per stale one it finds`;
  pop.append(
    el("span", "xc-label", "add"),
    countInput,
    el("span", "xc-label", "keys"),
    prefixInput,
    el("span", "xc-label", "TTL"),
    minInput,
    el("span", "xc-label", "–"),
    maxInput,
    el("span", "xc-label", "s"),
    dist,
    popButton,
    longButton,
  );

  const message = el("p", "xc-message");
  message.id = "expiry-controls-message";
  message.setAttribute("role", "status");
  root.append(config, pop, message);

  function say(text, kind = "info") {
    message.textContent = text;
    message.className = `xc-message is-${kind}`;
  }

  function invalid(input, text) {
    input.setAttribute("aria-invalid", "true");
    say(text, "error");
  }

  for (const input of [hzInput, countInput, prefixInput, minInput, maxInput]) {
    input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  }

  config.addEventListener("submit", (event) => {
    event.preventDefault();
    const r = parseHz(hzInput.value);
    if (!r.ok) return invalid(hzInput, r.message);
    hzInput.removeAttribute("aria-invalid");
    handlers.config("hz", String(r.value));
  });
  hzInput.addEventListener("change", () => config.requestSubmit());
  effort.addEventListener("change", () => handlers.config("active-expire-effort", effort.value));
  for (const r of Object.values(radios)) {
    r.addEventListener("change", () => {
      if (r.checked) handlers.config("playground-expire-algorithm", r.value);
    });
  }

  pop.addEventListener("submit", (event) => {
    event.preventDefault();
    const r = parsePopulate({
      count: countInput.value,
      prefix: prefixInput.value,
      min: minInput.value,
      max: maxInput.value,
      distribution: dist.value,
    });
    if (!r.ok) {
      const which = /keys:/.test(r.message) ? countInput : /prefix/.test(r.message) ? prefixInput : /Longest/.test(r.message) ? maxInput : minInput;
      return invalid(which, r.message);
    }
    for (const input of [countInput, prefixInput, minInput, maxInput]) input.removeAttribute("aria-invalid");
    handlers.populate(r.value);
  });
  longButton.addEventListener("click", () => handlers.longLived());

  let shown = {};
  return {
    /** Shows the engine's values (after a CONFIG SET from anywhere, or a reset). */
    setValues({ hz, effort: e, algorithm }) {
      if (hz !== undefined && shown.hz !== hz && document.activeElement !== hzInput) {
        shown.hz = hz;
        hzInput.value = String(hz);
        hzInput.removeAttribute("aria-invalid");
      }
      if (e !== undefined && shown.effort !== e) {
        shown.effort = e;
        effort.value = String(e);
      }
      if (algorithm !== undefined && shown.algorithm !== algorithm) {
        shown.algorithm = algorithm;
        if (radios[algorithm]) radios[algorithm].checked = true;
        effort.disabled = algorithm === "classic";
        effortLabel.classList.toggle("is-disabled", algorithm === "classic");
      }
    },
    say,
    /** Forget what is shown (after a reset) so the next setValues writes everything. */
    forget() {
      shown = {};
    },
    busy(on) {
      popButton.disabled = on;
      longButton.disabled = on;
    },
  };
}
