// @ts-check
// "What this tick did": the expire cycles of one serverCron tick (a slow cycle, and the fast one
// beforeSleep may run after it), each with its budget bar and its rounds — the buckets or random
// picks a round examined, the keys (deleted ones struck through), the stale percentage against
// the threshold, and the engine's own repeat/stop decision and reason. Everything is read from
// the `expire_cycle` events (the words from expiry-cycle.js); user data (key names) goes in
// through textContent only.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { formatTtl, formatUs, describeCycle, describeRound, pickCounts, reasonText } from "./expiry-cycle.js";

/** @typedef {import("./engine-types.js").ExpireCycleReport} ExpireCycleReport */
/** @typedef {import("./engine-types.js").ExpireRound} ExpireRound */
/**
 * `hz` for the budget's words; keys are listed for the first `keysForRounds` rounds of a cycle,
 * rounds for the first `maxRounds`; `ticksInFrame`: how many ticks ran with this one.
 * @typedef {{hz: number, keysForRounds: number, maxRounds?: number, formatTime: (ms: number) => string,
 *            ticksInFrame?: number}} TickOptions
 */

/**
 * A percentage for a CSS width, clamped to 0…100.
 * @param {number} v
 */
function pct(v) {
  return `${Math.max(0, Math.min(100, v)).toFixed(3)}%`;
}

/** @param {ExpireCycleReport} report */
function budgetBar(report) {
  const box = el("div", "tk-budget");
  box.dataset.used = String(report.time_used_us);
  box.dataset.budget = String(report.budget_us);
  box.dataset.capped = String(Boolean(report.cap_reached));
  const bar = el("div", `tk-bar${report.cap_reached ? " is-capped" : ""}`);
  bar.setAttribute("role", "meter");
  bar.setAttribute("aria-valuemin", "0");
  bar.setAttribute("aria-valuemax", String(report.budget_us));
  bar.setAttribute("aria-valuenow", String(Math.min(report.time_used_us, report.budget_us)));
  bar.setAttribute("aria-label", t("Time used of the cycle's budget"));
  const fill = el("div", "tk-bar-fill");
  const used = report.budget_us > 0 ? (report.time_used_us / report.budget_us) * 100 : 0;
  fill.style.width = used > 0 ? `max(2px, ${pct(used)})` : "0";
  bar.append(fill);
  // Where each listed round ended, on the same scale.
  for (const r of report.rounds.slice(0, 64)) {
    const at = report.budget_us > 0 ? (r.elapsed_us / report.budget_us) * 100 : 0;
    if (at <= 0 || at > 100) continue;
    const tick = el("span", "tk-bar-round");
    tick.style.left = pct(at);
    bar.append(tick);
  }
  box.append(bar);
  return box;
}

/**
 * @param {ExpireRound} round
 * @param {ExpireCycleReport} report
 */
function staleBar(round, report) {
  const classic = report.algorithm === "classic";
  const threshold = classic ? 25 : Number(report.acceptable_stale);
  const scale = Math.min(100, Math.max(30, threshold * 3));
  const stale = Number(round.stale_percent);
  const bar = el("span", `tk-stalebar${round.repeat ? " is-over" : ""}`);
  bar.title = t("{pct}% of the keys examined were expired; the line is the threshold ({threshold}%)", { pct: stale.toFixed(1), threshold });
  const fill = el("span", "tk-stalebar-fill");
  fill.style.width = pct((Math.min(stale, scale) / scale) * 100);
  const mark = el("span", "tk-stalebar-mark");
  mark.style.left = pct((threshold / scale) * 100);
  bar.append(fill, mark);
  return bar;
}

/**
 * @param {ExpireRound} round
 * @param {ExpireCycleReport} report
 */
function keyChips(round, report) {
  const box = el("div", "tk-keys");
  const classic = report.algorithm === "classic";
  const counts = classic ? pickCounts(round) : null;
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (const k of round.keys) {
    const chip = el("span", `tk-key ${k.expired ? "is-deleted" : "is-live"}`);
    chip.dataset.key = k.key;
    chip.dataset.expired = String(Boolean(k.expired));
    chip.dataset.ttl = String(k.ttl_ms);
    const nth = (seen.get(k.key) ?? 0) + 1;
    seen.set(k.key, nth);
    const ttl = k.expired ? t("{late} late → deleted", { late: formatTtl(-k.ttl_ms) }) : formatTtl(k.ttl_ms);
    chip.append(el("span", "tk-key-name", k.key), el("span", "tk-key-ttl", ttl));
    const picks = counts?.get(k.key) ?? 0;
    if (classic && picks > 1) {
      chip.classList.add("is-repick");
      chip.append(el("span", "tk-key-pick", nth === 1 ? t("picked ×{n}", { n: picks }) : t("again ({n})", { n: nth })));
    }
    box.append(chip);
  }
  const more = Number(round.sampled) - round.keys.length;
  if (more > 0) box.append(el("span", "tk-more", t("+{n} more keys examined (not listed)", { n: number(more) })));
  return box;
}

/**
 * One round: its sweep and counts, the stale share against the threshold, the engine's decision
 * and reason, and (for the first rounds) the keys it examined.
 * @param {ExpireRound} round
 * @param {number} ri  its index in the cycle
 * @param {ExpireCycleReport} report
 * @param {number} keysForRounds
 */
function roundItem(round, ri, report, keysForRounds) {
  const r = describeRound(round, report);
  const li = el("li", `tk-round ${round.repeat ? "is-repeat" : "is-stop"} round-${(ri % 6) + 1}`);
  Object.assign(li.dataset, {
    db: String(round.db),
    iteration: String(round.iteration),
    sampled: String(round.sampled),
    expired: String(round.expired),
    buckets: String(round.buckets),
    cursor: String(round.cursor),
    repeat: String(Boolean(round.repeat)),
    round: String(ri + 1),
  });
  const rh = el("div", "tk-round-head");
  rh.append(
    el("span", "tk-round-title", `R${ri + 1} · ${r.title}`),
    el("span", "tk-sweep", r.sweep),
    el("span", "tk-counts", r.counts),
    el("span", "tk-elapsed", t("at {time}", { time: formatUs(round.elapsed_us) })),
  );
  const dec = el("div", "tk-round-decision");
  dec.append(
    el("span", "tk-stale", r.stale),
    staleBar(round, report),
    el("span", `tk-decision is-${r.decision}`, r.decision === "repeat" ? t("→ repeat this db") : t("→ stop")),
    el("q", "tk-reason", reasonText(round.reason)),
  );
  li.append(rh, dec);
  if (r.note) li.append(el("div", "tk-note", r.note));
  if (ri < keysForRounds) li.append(keyChips(round, report));
  return li;
}

/**
 * One cycle: its kind, algorithm and parameters, the budget bar, the totals and its rounds.
 * @param {ExpireCycleReport} report
 * @param {number} ci  its index in the tick
 * @param {TickOptions} opts
 */
function cycleSection(report, ci, { hz, keysForRounds, maxRounds = Number.POSITIVE_INFINITY }) {
  const d = describeCycle(report, hz);
  const sec = el("section", `tk-cycle is-${report.kind}`);
  sec.dataset.kind = report.kind;
  sec.dataset.algorithm = report.algorithm;
  sec.dataset.index = String(ci);
  sec.dataset.keysPerLoop = String(report.keys_per_loop);
  sec.dataset.acceptableStale = String(report.acceptable_stale);
  const h = el("div", "tk-cycle-head");
  const badge = el("span", `tk-kind tk-kind-${report.kind}`, kindBadge(report));
  badge.title = t("{kind}: {why}", { kind: d.kind, why: d.why });
  h.append(badge, el("span", "tk-algo", d.algorithm), el("span", "tk-params", d.params));
  const budget = budgetBar(report);
  budget.append(el("span", "tk-budget-text", d.budget));
  if (report.kind === "fast") h.append(el("span", "tk-why", t("({why})", { why: d.why })));
  sec.append(h, budget);
  if (d.capped) sec.append(el("div", "tk-cap", d.capped));
  sec.append(el("div", "tk-totals", `${d.iterations} · ${d.totals}`));

  const list = el("ol", "tk-rounds");
  report.rounds.slice(0, maxRounds).forEach((round, ri) => {
    list.append(roundItem(round, ri, report, keysForRounds));
  });
  const shown = Math.min(report.rounds.length, maxRounds);
  sec.append(list);
  if (shown < report.rounds.length) {
    sec.append(
      el(
        "p",
        "tk-more",
        t("…{n} more rounds. While playing, {shown} rounds are listed (keys for {keys}); pause or step to see them all.", {
          n: number(report.rounds.length - shown),
          shown,
          keys: keysForRounds,
        }),
      ),
    );
  } else if (shown > keysForRounds) {
    sec.append(el("p", "tk-more", t("While playing, keys are listed for the first {n} rounds; pause or step to see every round's keys.", { n: keysForRounds })));
  }
  const unlisted = Number(report.round_count) - report.rounds.length;
  if (report.rounds.length >= 64 && unlisted > 0) {
    sec.append(el("p", "tk-more", t("…and up to {n} more loops not listed (the engine lists 64 rounds per cycle; the totals count them all).", { n: number(unlisted) })));
  }
  return sec;
}

/**
 * The cycle's kind as its badge says it.
 * @param {ExpireCycleReport} report
 */
function kindBadge(report) {
  return report.kind === "fast" ? t("FAST") : t("SLOW");
}

/**
 * A button jumping to a cycle when a tick ran several.
 * @param {ExpireCycleReport} report
 * @param {HTMLElement} sec  its section
 */
function jumpButton(report, sec) {
  const n = number(report.rounds.length);
  const parts = [
    kindBadge(report),
    report.rounds.length === 1 ? t("{n} round", { n }) : t("{n} rounds", { n }),
    t("{n} deleted", { n: number(report.expired) }),
    ...(report.cap_reached ? [t("over budget")] : []),
  ];
  const b = el("button", `tk-jump is-${report.kind}`, parts.join(" · "));
  b.type = "button";
  b.addEventListener("click", () => sec.scrollIntoView({ block: "start" }));
  return b;
}

/**
 * Renders one tick into `root`.
 * @param {HTMLElement} root
 * @param {{at: number, cycles: ExpireCycleReport[]} | null} tick
 * @param {TickOptions} opts
 */
export function renderTick(root, tick, opts) {
  if (tick === null) {
    const empty = el("div", "tk-empty");
    empty.append(
      el("p", "tk-empty-title", t("No expire cycle has run yet.")),
      el(
        "p",
        "tk-empty-hint",
        t(
          "Add keys with a TTL (the form above, or SET k v PX 1500 in the console), then press “Step 1 tick”: each serverCron tick runs one slow cycle, listed here round by round.",
        ),
      ),
    );
    root.replaceChildren(empty);
    return;
  }
  const ticksInFrame = opts.ticksInFrame ?? 1;
  const nodes = [];
  const head = el("div", "tk-head");
  head.append(
    el("span", "tk-when", t("Tick at {time}", { time: opts.formatTime(tick.at) })),
    el(
      "span",
      "tk-count",
      [
        tick.cycles.length === 1 ? t("1 cycle") : t("{n} cycles", { n: tick.cycles.length }),
        ...(ticksInFrame > 1 ? [t("the last of {n} ticks run this frame", { n: number(ticksInFrame) })] : []),
      ].join(" · "),
    ),
  );
  nodes.push(head);
  // Several cycles in one tick (a slow one over budget, then beforeSleep's fast one): say so
  // up front, with a way to jump to each.
  const jumps = tick.cycles.length > 1 ? el("div", "tk-jumps") : null;
  if (jumps) nodes.push(jumps);
  tick.cycles.forEach((report, ci) => {
    const sec = cycleSection(report, ci, opts);
    nodes.push(sec);
    if (jumps) {
      if (ci > 0) jumps.append(el("span", "tk-then", t("and then")));
      jumps.append(jumpButton(report, sec));
    }
  });
  root.replaceChildren(...nodes);
}
