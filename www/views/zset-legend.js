// The sorted-set view's legend for the skiplist picture, and the last search path written
// out level by level (the canvas draws it; this lists every node with its rank, including the
// ones outside the visible window). DOM only, member names through textContent.

import { levelColor } from "./zset-skiplist-canvas.js";

/** Steps of a search path listed (the canvas draws them all). */
const MAX_LISTED_STEPS = 120;

const number = (n) => Number(n).toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** `{legend, pathBox, render(win, search)}`; `search` is `{event, placed}` or null. */
export function createZsetLegend() {
  const legend = el("div", "zset-legend");
  legend.id = "zset-legend";
  const lanes = el("span", "legend-item");
  lanes.id = "zset-lanes";
  const swatch = (color, text) => {
    const item = el("span", "legend-item");
    const box = el("span", "swatch");
    box.style.background = color;
    item.append(box, document.createTextNode(text));
    return item;
  };
  const ramp = el("span", "legend-item");
  const rampBoxes = el("span", "swatch-ramp");
  for (let h = 1; h <= 9; h += 1) {
    const b = el("span", "swatch");
    b.style.background = levelColor(h);
    rampBoxes.append(b);
  }
  ramp.append(rampBoxes, document.createTextNode("node height = levels drawn at insert (each extra one with p = 1/4)"));
  legend.append(
    lanes,
    ramp,
    el("span", "legend-item", "→ 12  forward link; 12 = its span (members jumped)"),
    swatch("#ff5a4e", "just placed"),
    swatch("#ffd166", "search moved on"),
    swatch("#ff7b72", "too far ✗"),
    swatch("#7ee787", "found"),
  );

  const pathBox = el("div", "zset-path");
  pathBox.id = "zset-path";
  pathBox.hidden = true;
  const pathTitle = el("div", "zset-path-title");
  const pathList = el("ol", "zset-path-levels");
  pathBox.append(pathTitle, pathList);

  let listed = null; // the search the list was built for

  function renderPath(search) {
    const cmd = search.event.command.toUpperCase();
    const placed = search.placed;
    if (placed === null) {
      pathTitle.textContent = `${cmd}: ${number(search.event.path.length)} nodes examined (not placed: the set changed since).`;
      pathList.replaceChildren();
      return;
    }
    pathTitle.textContent =
      `${cmd} search path, top level first — ${number(placed.steps.length)} nodes examined` +
      (placed.uncertain ? " (the event does not say whether the last one was entered)" : "");
    const rows = [];
    let count = 0;
    for (const s of placed.steps) {
      if (count >= MAX_LISTED_STEPS) break;
      let row = rows[rows.length - 1];
      if (!row || row.level !== s.level) {
        row = { level: s.level, li: el("li", "path-level") };
        row.li.append(el("span", "path-lane", `L${s.level + 1}`));
        rows.push(row);
      }
      const node = el("span", s.advanced ? "path-step is-advanced" : "path-step is-refused");
      node.append(el("span", "path-member", s.member), el("span", "path-rank", ` #${number(s.rank)}`));
      node.append(document.createTextNode(s.advanced ? " →" : " ✗"));
      row.li.append(node);
      count += 1;
    }
    const items = rows.map((r) => r.li);
    if (count < placed.steps.length) items.push(el("li", "path-more", `… ${number(placed.steps.length - count)} more`));
    pathList.replaceChildren(...items);
  }

  return {
    legend,
    pathBox,

    /** `win`: the skiplist window shown, or null (hides both). */
    render(win, search) {
      legend.hidden = win === null;
      pathBox.hidden = win === null || search === null;
      if (win !== null) {
        const text = `${win.max_level} lane${win.max_level === 1 ? "" : "s"}: L1 (every member) … L${win.max_level} (the tallest node)`;
        if (lanes.textContent !== text) lanes.textContent = text;
      }
      if (!pathBox.hidden && listed !== search) {
        listed = search;
        renderPath(search);
      }
    },
  };
}
