// @ts-check
// The sorted-set view's legend for the skiplist picture, and the last search path written
// out level by level (the canvas draws it; this lists every node with its rank, including the
// ones outside the visible window). DOM only, member names through textContent; the words come
// from zset-model.js.

import { el } from "../dom.js";
import { number } from "../format.js";
import { t } from "../i18n.js";
import { levelColor } from "./zset-skiplist-canvas.js";
import { lanesText, pathListing } from "./zset-model.js";

/** @typedef {import("./engine-types.js").ZsetWindow} ZsetWindow */
/** @typedef {import("./zset-model.js").Search} Search */

/** Steps of a search path listed (the canvas draws them all). */
const MAX_LISTED_STEPS = 120;

/**
 * @param {string} color
 * @param {string} text
 */
function swatch(color, text) {
  const item = el("span", "legend-item");
  const box = el("span", "swatch");
  box.style.background = color;
  item.append(box, document.createTextNode(text));
  return item;
}

/** `{legend, pathBox, render(win, search)}`. */
export function createZsetLegend() {
  const legend = el("div", "zset-legend");
  legend.id = "zset-legend";
  const lanes = el("span", "legend-item");
  lanes.id = "zset-lanes";
  const ramp = el("span", "legend-item");
  const rampBoxes = el("span", "swatch-ramp");
  for (let h = 1; h <= 9; h += 1) {
    const b = el("span", "swatch");
    b.style.background = levelColor(h);
    rampBoxes.append(b);
  }
  ramp.append(rampBoxes, document.createTextNode(t("node height = levels drawn at insert (each extra one with p = 1/4)")));
  legend.append(
    lanes,
    ramp,
    el("span", "legend-item", t("→ 12  forward link; 12 = its span (members jumped)")),
    swatch("#ff5a4e", t("just placed")),
    swatch("#ffd166", t("search moved on")),
    swatch("#ff7b72", t("too far ✗")),
    swatch("#7ee787", t("found")),
  );

  const pathBox = el("div", "zset-path");
  pathBox.id = "zset-path";
  pathBox.hidden = true;
  const pathTitle = el("div", "zset-path-title");
  const pathList = el("ol", "zset-path-levels");
  pathBox.append(pathTitle, pathList);

  /** @type {Search | null} the search the list was built for */
  let listed = null;

  /** @param {Search} search */
  function renderPath(search) {
    const { title, rows, more } = pathListing(search, MAX_LISTED_STEPS);
    pathTitle.textContent = title;
    const items = rows.map((row) => {
      const li = el("li", "path-level");
      li.append(el("span", "path-lane", `L${row.level + 1}`));
      for (const s of row.steps) {
        const node = el("span", s.advanced ? "path-step is-advanced" : "path-step is-refused");
        node.append(el("span", "path-member", s.member), el("span", "path-rank", ` #${number(s.rank)}`));
        node.append(document.createTextNode(s.advanced ? " →" : " ✗"));
        li.append(node);
      }
      return li;
    });
    if (more > 0) items.push(el("li", "path-more", t("… {n} more", { n: number(more) })));
    pathList.replaceChildren(...items);
  }

  return {
    legend,
    pathBox,

    /**
     * @param {ZsetWindow | null} win  the skiplist window shown, or null (hides both)
     * @param {Search | null} search
     */
    render(win, search) {
      legend.hidden = win === null;
      pathBox.hidden = win === null || search === null;
      if (win !== null) {
        const text = lanesText(win);
        if (lanes.textContent !== text) lanes.textContent = text;
      }
      if (search !== null && !pathBox.hidden && listed !== search) {
        listed = search;
        renderPath(search);
      }
    },
  };
}
