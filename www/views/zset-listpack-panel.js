// @ts-check
// The sorted-set view's listpack panel: a small sorted set drawn as what it is — one flat
// array of member, score, member, score… in score order — with how full it is against
// zset-max-listpack-entries and zset-max-listpack-value, the limits past which Redis converts
// it to a skiplist. DOM only (a listpack page is at most a few hundred entries); every member
// is written with textContent. The words and numbers come from zset-model.js.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { formatScore, listpackMeter } from "./zset-model.js";

/** @typedef {import("./engine-types.js").ZsetWindow} ZsetWindow */

/** `{root, render(win, landedMember)}`: `win` is a listpack `zset_window`. */
export function createListpackPanel() {
  const root = el("div", "zset-listpack");
  root.id = "zset-listpack";
  root.hidden = true;
  const meter = el("div", "lp-meter");
  const countText = el("span", "lp-meter-text");
  countText.id = "zset-lp-count";
  const bar = el("span", "lp-bar");
  const barFill = el("span", "lp-bar-fill");
  bar.append(barFill);
  const valueText = el("span", "lp-meter-text lp-value");
  valueText.id = "zset-lp-value";
  meter.append(countText, bar, valueText);
  const entries = el("ol", "lp-entries");
  entries.id = "zset-lp-entries";
  entries.setAttribute("aria-label", t("Listpack entries in order"));
  const explain = el(
    "p",
    "zset-explain",
    t(
      "A small sorted set is one flat listpack: member, score, member, score… kept in score order. ZADD scans it for the spot and shifts the rest — cheap while it is small. Past either limit Redis converts it to a skiplist (plus a hash table for ZSCORE).",
    ),
  );
  root.append(meter, entries, explain);

  return {
    root,

    /**
     * @param {ZsetWindow} win
     * @param {string | null} landedMember  the member to mark as just placed
     */
    render(win, landedMember) {
      const m = listpackMeter(win);
      countText.textContent = m.count;
      barFill.style.width = `${m.fillPercent}%`;
      bar.classList.toggle("is-full", m.full);
      valueText.textContent = m.value;
      const items = win.entries.map((e) => {
        const item = el("li", "lp-entry");
        item.dataset.rank = String(e.rank);
        item.title = t("rank {rank}: {member} = {score}", { rank: e.rank, member: e.member, score: formatScore(e.score) });
        item.append(el("span", "lp-rank", String(e.rank)), el("span", "lp-member", e.member), el("span", "lp-score", formatScore(e.score)));
        if (landedMember !== null && e.member === landedMember) {
          item.classList.add("is-landed");
          item.id = "zset-landed-entry";
        }
        return item;
      });
      entries.replaceChildren(...items);
      entries.querySelector(".is-landed")?.scrollIntoView({ block: "nearest", inline: "nearest" });
    },
  };
}
