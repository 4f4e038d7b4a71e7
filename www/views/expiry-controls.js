// @ts-check
// The expiry view's controls: the config parameters that shape the active expire cycle (hz,
// active-expire-effort, the playground's algorithm switch) and a form that fills the current db
// with keys whose TTLs are drawn from the engine's seeded RNG. DOM only: the parsing is in
// expiry-model.js, and bad input gets a sentence next to the form, never a thrown error. The
// controls never call the engine: they call the handlers the view gives them.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { LONG_LIVED, parseHz, parsePopulate, populateFieldOf } from "./expiry-forms.js";

/** @typedef {import("./expiry-forms.js").PopulateSpec} PopulateSpec */
/** @typedef {import("./expiry-model.js").ExpiryConfig} ExpiryConfig */
/**
 * @typedef {object} ControlHandlers
 * @property {(name: string, value: string) => void} config  set one config parameter
 * @property {(p: PopulateSpec) => void} populate
 * @property {() => void} longLived
 */

/**
 * A text input for the populate form.
 * @param {string} id
 * @param {string} value
 * @param {number} size
 * @param {string} label
 * @param {string} [title]
 */
function textField(id, value, size, label, title) {
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
}

/**
 * A <select> with `[value, text]` options.
 * @param {string} id
 * @param {ReadonlyArray<readonly [string, string]>} options
 */
function select(id, options) {
  const s = el("select", "xc-select");
  s.id = id;
  for (const [value, text] of options) {
    const o = el("option", "", text);
    o.value = value;
    s.append(o);
  }
  return s;
}

/** The config row: hz, effort, algorithm. */
function createConfigRow() {
  const form = el("form", "xc-row xc-config");
  form.noValidate = true;
  const hzLabel = el("label", "xc-label", "hz ");
  const hzInput = el("input", "xc-input xc-hz");
  hzInput.id = "expiry-hz";
  hzInput.type = "text";
  hzInput.inputMode = "numeric";
  hzInput.size = 4;
  hzInput.autocomplete = "off";
  hzInput.title = t("serverCron runs hz times per (virtual) second; each run is one slow expire cycle");
  hzLabel.append(hzInput);
  const hzSet = el("button", "btn btn-small", t("Set"));
  hzSet.type = "submit";
  hzSet.id = "expiry-hz-set";

  const effortLabel = el("label", "xc-label", "effort ");
  const effort = select(
    "expiry-effort",
    Array.from({ length: 10 }, (_, i) => /** @type {const} */ ([String(i + 1), String(i + 1)])),
  );
  effort.title = t("active-expire-effort, 1 (default) … 10: more keys per loop, a lower stale threshold, a bigger CPU budget (7.0 only)");
  effortLabel.title = effort.title;
  effortLabel.append(effort);

  const algo = el("fieldset", "xc-algo");
  algo.append(el("legend", "xc-legend", t("algorithm")));
  /** @type {Record<string, HTMLInputElement>} */
  const radios = {};
  for (const [value, text, title] of [
    ["7.0", t("7.0 (cursor)"), t("Redis 7.0: walks the expires table bucket by bucket from a cursor")],
    ["classic", t("classic ≤5.0 (random)"), t("Redis ≤5.0, as tutorials describe it: 20 random keys, repeat while more than 5 were expired")],
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
  form.append(hzLabel, hzSet, effortLabel, algo);
  return { form, hzInput, effort, effortLabel, radios };
}

/** The populate row: how many keys, their prefix, the TTL range and distribution. */
function createPopulateRow() {
  const form = el("form", "xc-row xc-populate");
  form.noValidate = true;
  form.id = "expiry-populate";
  const inputs = {
    count: textField("expiry-pop-count", "100000", 7, t("How many keys"), t("up to 1,000,000 per press")),
    prefix: textField("expiry-pop-prefix", "k:", 4, t("Key prefix"), t("keys are named <prefix>0, <prefix>1, …; existing names are skipped")),
    min: textField("expiry-pop-min", "1", 3, t("Shortest TTL in seconds")),
    max: textField("expiry-pop-max", "60", 3, t("Longest TTL in seconds")),
  };
  const dist = select("expiry-pop-dist", [
    ["uniform", t("uniform")],
    ["exponential", t("exponential")],
  ]);
  dist.setAttribute("aria-label", t("TTL distribution"));
  dist.title = t("uniform: TTLs spread evenly over the range; exponential: most near the shortest, a long tail");
  const popButton = el("button", "btn btn-small", t("Populate"));
  popButton.type = "submit";
  popButton.id = "expiry-pop-go";
  const longButton = el("button", "btn btn-small", t("+{n}k long-lived", { n: number(LONG_LIVED.count / 1000) }));
  longButton.type = "button";
  longButton.id = "expiry-pop-long";
  longButton.title = t(
    "{n} keys with a TTL of 1–2 hours: they fill the expires table, so the cycle examines more live keys per stale one it finds",
    { n: number(LONG_LIVED.count) },
  );
  form.append(
    el("span", "xc-label", t("add")),
    inputs.count,
    el("span", "xc-label", t("keys")),
    inputs.prefix,
    el("span", "xc-label", "TTL"),
    inputs.min,
    el("span", "xc-label", "–"),
    inputs.max,
    el("span", "xc-label", t("s")),
    dist,
    popButton,
    longButton,
  );
  return { form, inputs, dist, popButton, longButton };
}

/**
 * @param {HTMLElement} root
 * @param {ControlHandlers} handlers
 */
export function createExpiryControls(root, handlers) {
  root.replaceChildren();
  const config = createConfigRow();
  const pop = createPopulateRow();
  const message = el("p", "xc-message");
  message.id = "expiry-controls-message";
  message.setAttribute("role", "status");
  root.append(config.form, pop.form, message);

  /**
   * @param {string} text
   * @param {string} [kind]  info, ok or error
   */
  function say(text, kind = "info") {
    message.textContent = text;
    message.className = `xc-message is-${kind}`;
  }

  /**
   * @param {HTMLInputElement} input
   * @param {string} text
   */
  function invalid(input, text) {
    input.setAttribute("aria-invalid", "true");
    say(text, "error");
  }

  const { hzInput, effort, effortLabel, radios } = config;
  const popInputs = Object.values(pop.inputs);
  for (const input of [hzInput, ...popInputs]) {
    input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  }

  config.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const r = parseHz(hzInput.value);
    if (!r.ok) return invalid(hzInput, r.message);
    hzInput.removeAttribute("aria-invalid");
    handlers.config("hz", String(r.value));
  });
  hzInput.addEventListener("change", () => config.form.requestSubmit());
  effort.addEventListener("change", () => handlers.config("active-expire-effort", effort.value));
  for (const r of Object.values(radios)) {
    r.addEventListener("change", () => {
      if (r.checked) handlers.config("playground-expire-algorithm", r.value);
    });
  }

  pop.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { count, prefix, min, max } = pop.inputs;
    const r = parsePopulate({ count: count.value, prefix: prefix.value, min: min.value, max: max.value, distribution: pop.dist.value });
    if (!r.ok) return invalid(pop.inputs[populateFieldOf(r.message)], r.message);
    for (const input of popInputs) input.removeAttribute("aria-invalid");
    handlers.populate(r.value);
  });
  pop.longButton.addEventListener("click", () => handlers.longLived());

  /** @type {Partial<ExpiryConfig>} what is shown */
  let shown = {};
  return {
    /**
     * Shows the engine's values (after a CONFIG SET from anywhere, or a reset).
     * @param {Partial<ExpiryConfig>} values
     */
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
    /** @param {boolean} on */
    busy(on) {
      pop.popButton.disabled = on;
      pop.longButton.disabled = on;
    },
  };
}
