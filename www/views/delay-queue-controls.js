// @ts-check
// The delay-queue lab's form: strategy (and a second one to compare), consumers, poll interval,
// LIMIT, work time, RTT, the order producer (rate, delay, payments), duration, the crash
// schedule, seed, hz and extra volatile keys — plus presets, among them the seeds' walkthrough.
//
// DOM only: the fields, their parsers and the presets are in delay-queue-forms.js. Bad input
// never throws: the field is marked (aria-invalid) and a sentence appears right under it
// (aria-describedby), and the lab is not touched. The form never calls the engine; it hands a
// config to `onRun`.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { DEFAULT_FORM, FIELDS, PRESETS, STRATEGY_NUMBERS, notRunMessage, ordersNote, parseForm } from "./delay-queue-forms.js";

export {
  DEFAULT_FORM,
  DEFAULT_START_MS,
  FIELDS,
  MAX_CONSUMERS,
  MAX_ORDERS,
  PRESETS,
  STRATEGY_NUMBERS,
  WALKTHROUGH_START_MS,
  formatCrashes,
  formatDuration,
  parseCrashes,
  parseDuration,
  parseForm,
  parsePayProb,
  parseRate,
} from "./delay-queue-forms.js";

/** @typedef {import("./delay-queue-forms.js").FormValues} FormValues */
/** @typedef {ReturnType<typeof parseForm>} ParsedForm */

/** Each field is checked this long after typing pauses (ms). */
const CHECK_AFTER_MS = 400;

function createPresetRow() {
  const presetRow = el("div", "xc-row dq-preset-row");
  const presetLabel = el("label", "xc-label", `${t("preset")} `);
  const presetSelect = el("select", "xc-select");
  presetSelect.id = "dq-preset";
  const custom = el("option", "", t("Custom (the fields below)"));
  custom.value = "custom";
  presetSelect.append(custom);
  for (const p of PRESETS) {
    const o = el("option", "", p.label);
    o.value = p.id;
    presetSelect.append(o);
  }
  presetLabel.append(presetSelect);
  presetRow.append(presetLabel);
  const presetNote = el("p", "dq-preset-note");
  presetNote.id = "dq-preset-note";
  presetNote.hidden = true;
  return { presetRow, presetSelect, presetNote };
}

/** @param {(n: number) => string} strategyName */
function createStrategyRow(strategyName) {
  const strategyRow = el("div", "xc-row dq-strategy-row");
  const strategyLabel = el("label", "xc-label", `${t("strategy")} `);
  const strategy = el("select", "xc-select");
  strategy.id = "dq-strategy";
  const compareLabel = el("label", "xc-label dq-compare-label");
  const compare = el("input");
  compare.type = "checkbox";
  compare.id = "dq-compare";
  compareLabel.append(compare, document.createTextNode(` ${t("compare with")} `));
  const compareStrategy = el("select", "xc-select");
  compareStrategy.id = "dq-compare-strategy";
  compareStrategy.setAttribute("aria-label", t("the strategy to compare with"));
  for (const n of STRATEGY_NUMBERS) {
    for (const sel of [strategy, compareStrategy]) {
      const o = el("option", "", `${n} · ${strategyName(n)}`);
      o.value = String(n);
      sel.append(o);
    }
  }
  strategyLabel.append(strategy);
  compareLabel.append(compareStrategy);
  strategyRow.append(strategyLabel, compareLabel);
  return { strategyRow, strategy, compare, compareStrategy };
}

/**
 * The fields, each with its message under it; the two selects get messages too.
 * @param {HTMLElement} strategyRow
 */
function createFieldGrid(strategyRow) {
  const grid = el("div", "dq-fields");
  /** @type {Record<string, HTMLInputElement>} */
  const inputs = {};
  /** @type {Record<string, HTMLElement>} */
  const messages = {};
  /**
   * @param {string} key
   * @param {string} label
   * @param {number} size
   * @param {string} title
   * @param {boolean} [wide]
   */
  function field(key, label, size, title, wide = false) {
    const box = el("div", wide ? "dq-field dq-field-wide" : "dq-field");
    box.dataset.field = key;
    const lab = el("label", "xc-label", label);
    const input = el("input", "xc-input");
    input.id = `dq-${key}`;
    lab.htmlFor = input.id;
    input.type = "text";
    input.size = size;
    input.autocomplete = "off";
    input.spellcheck = false;
    if (title) input.title = title;
    const msg = el("p", "dq-field-msg");
    msg.id = `dq-${key}-msg`;
    msg.hidden = true;
    input.setAttribute("aria-describedby", msg.id);
    box.append(lab, input, msg);
    grid.append(box);
    inputs[key] = input;
    messages[key] = msg;
  }
  for (const f of FIELDS) field(f.key, f.label, f.size, f.title);
  field("crashes", t("crashes"), 30, t("e.g. \"consumer 1 at 10m for 5m; consumer 2 at 40m for 30s\" (times since the start)"), true);
  inputs.crashes.placeholder = "consumer 1 at 10m for 5m";
  for (const key of ["strategy", "compareStrategy"]) {
    const msg = el("p", "dq-field-msg");
    msg.id = `dq-${key}-msg`;
    msg.hidden = true;
    messages[key] = msg;
  }
  strategyRow.append(messages.strategy, messages.compareStrategy);
  return { grid, inputs, messages };
}

function createActions() {
  const actions = el("div", "xc-row dq-form-actions");
  const run = el("button", "btn btn-small btn-play", t("Run"));
  run.type = "submit";
  run.id = "dq-run";
  run.title = t("Start a fresh lab with these settings and play it");
  const formMsg = el("p", "xc-message dq-form-msg");
  formMsg.id = "dq-form-msg";
  formMsg.setAttribute("role", "status");
  actions.append(run, formMsg);
  const ordersNoteEl = el("p", "dq-orders-note");
  ordersNoteEl.id = "dq-orders-note";
  ordersNoteEl.hidden = true;
  return { actions, formMsg, ordersNoteEl };
}

/**
 * @param {HTMLElement} root
 * @param {object} opts
 * @param {(n: number) => string} opts.strategyName
 * @param {(request: {config: Record<string, any>, compareStrategy: number | null, preset: string}) => void} opts.onRun
 */
export function createDelayQueueControls(root, { strategyName, onRun }) {
  root.replaceChildren();
  const form = el("form", "dq-form");
  form.id = "dq-form";
  form.noValidate = true;
  form.setAttribute("aria-label", t("Delay-queue lab settings"));
  const { presetRow, presetSelect, presetNote } = createPresetRow();
  const { strategyRow, strategy, compare, compareStrategy } = createStrategyRow(strategyName);
  const { grid, inputs, messages } = createFieldGrid(strategyRow);
  strategy.setAttribute("aria-describedby", messages.strategy.id);
  compareStrategy.setAttribute("aria-describedby", messages.compareStrategy.id);
  const { actions, formMsg, ordersNoteEl } = createActions();
  form.append(presetRow, presetNote, strategyRow, grid, ordersNoteEl, actions);
  root.append(form);

  const currentPreset = () => PRESETS.find((p) => p.id === presetSelect.value) ?? null;

  // Editing a preset's values makes it a custom run, except the walkthrough: its one explicit
  // order stays whatever strategy, consumers or poll interval it is run with.
  function leavePreset() {
    if (!currentPreset()?.extra) presetSelect.value = "custom";
    syncPreset();
  }

  function syncPreset() {
    const p = currentPreset();
    presetNote.hidden = !p;
    presetNote.textContent = p?.note ?? "";
    const orders = p?.extra?.orders ?? null;
    for (const f of FIELDS) {
      if (!f.producer) continue;
      inputs[f.key].disabled = orders !== null;
      inputs[f.key].closest(".dq-field")?.classList.toggle("is-disabled", orders !== null);
    }
    ordersNoteEl.hidden = orders === null;
    ordersNoteEl.textContent = orders === null ? "" : ordersNote(orders);
    compareStrategy.disabled = !compare.checked;
  }

  /** @returns {FormValues} */
  function values() {
    /** @type {FormValues} */
    const v = { strategy: strategy.value, compare: compare.checked, compareStrategy: compareStrategy.value };
    for (const [key, input] of Object.entries(inputs)) v[key] = input.value;
    return v;
  }

  /** @param {FormValues} v */
  function setValues(v) {
    if (v.strategy !== undefined) strategy.value = String(v.strategy);
    if (v.compare !== undefined) compare.checked = Boolean(v.compare);
    if (v.compareStrategy !== undefined) compareStrategy.value = String(v.compareStrategy);
    for (const [key, input] of Object.entries(inputs)) {
      if (v[key] !== undefined) {
        input.value = String(v[key]);
        input.removeAttribute("aria-invalid");
        messages[key].hidden = true;
      }
    }
    syncPreset();
  }

  /**
   * @param {string} key
   * @param {string | undefined} text
   */
  function showError(key, text) {
    const msg = messages[key];
    msg.hidden = !text;
    msg.textContent = text ?? "";
    msg.classList.toggle("is-error", Boolean(text));
    const input = inputs[key] ?? (key === "strategy" ? strategy : key === "compareStrategy" ? compareStrategy : null);
    if (!input) return;
    if (text) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  /** @param {Record<string, string>} errors */
  function showErrors(errors) {
    for (const key of Object.keys(messages)) showError(key, errors[key]);
  }

  /**
   * @param {string} text
   * @param {string} [kind]  info, ok or error
   */
  function message(text, kind = "info") {
    formMsg.textContent = text;
    formMsg.className = `xc-message dq-form-msg is-${kind}`;
    formMsg.setAttribute("role", kind === "error" ? "alert" : "status");
  }

  /** @param {string} id */
  function applyPreset(id) {
    presetSelect.value = id;
    const p = currentPreset();
    if (p) setValues({ ...DEFAULT_FORM, ...p.form });
    syncPreset();
  }

  const parse = () => parseForm(values(), currentPreset()?.extra ?? {});

  // Each field is checked shortly after typing pauses, so the sentence appears right where the
  // mistake is — while typing, not when the field is left: a message appearing on blur would
  // move the buttons below it under the pointer that is clicking them.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let checkTimer;
  /** @param {string} key */
  const checkSoon = (key) => {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(() => {
      const r = parse();
      if (inputs[key].value.trim() !== "") showError(key, r.errors[key]);
      // The crash schedule is checked against the consumers and the duration: recheck it.
      if ((key === "consumers" || key === "durationMs") && inputs.crashes.value.trim() !== "") showError("crashes", r.errors.crashes);
    }, CHECK_AFTER_MS);
  };
  for (const [key, input] of Object.entries(inputs)) {
    input.addEventListener("input", () => {
      input.removeAttribute("aria-invalid");
      messages[key].hidden = true;
      messages[key].textContent = "";
      leavePreset();
    });
    input.addEventListener("input", () => checkSoon(key));
  }
  compare.addEventListener("change", syncPreset);
  presetSelect.addEventListener("change", () => {
    if (presetSelect.value !== "custom") applyPreset(presetSelect.value);
    else syncPreset();
  });
  for (const sel of [strategy, compareStrategy, compare]) sel.addEventListener("change", leavePreset);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(checkTimer);
    const r = parse();
    showErrors(r.errors);
    if (!r.ok) {
      const keys = Object.keys(r.errors);
      message(notRunMessage(keys.length), "error");
      (inputs[keys[0]] ?? strategy).focus();
      return;
    }
    onRun({ config: r.config, compareStrategy: r.compareStrategy, preset: presetSelect.value });
  });

  setValues(DEFAULT_FORM);

  return { values, setValues, showErrors, message, applyPreset, parse, preset: currentPreset };
}
