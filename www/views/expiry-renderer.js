// @ts-check
// The expiry view's renderer: the panel's elements (header, controls box, field, callouts, the
// tick panel and the bucket list side by side, the charts) and the drawing of the parts that
// are not components of their own. DOM only: the words come from expiry-model.js; key names go
// in through textContent.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { CHART_SPANS } from "./expiry-history.js";
import { renderBuckets } from "./expiry-buckets.js";
import { renderTick } from "./expiry-tick-panel.js";
import { summaryText, tickOptions } from "./expiry-model.js";
import { bucketsPicture } from "./expiry-table-model.js";

/** @typedef {import("./expiry-model.js").ExpiryState} ExpiryState */
/** @typedef {ReturnType<typeof createExpiryDom>} ExpiryDom */

function createBucketsBox() {
  const bucketsBox = el("section", "expiry-buckets");
  const bucketsHead = el("div", "expiry-subhead");
  const bucketsTitle = el("span", "expiry-subtitle", t("Buckets around the cursor"));
  const follow = el("button", "btn btn-small", t("Follow the cursor"));
  follow.type = "button";
  follow.id = "expiry-follow";
  follow.hidden = true;
  bucketsHead.append(bucketsTitle, follow);
  const bucketsCaption = el("p", "expiry-caption");
  bucketsCaption.id = "expiry-buckets-caption";
  const bucketList = el("ol", "bk-list");
  bucketList.id = "expiry-buckets";
  // It scrolls: reachable (and scrollable) from the keyboard.
  bucketList.tabIndex = 0;
  bucketList.setAttribute("aria-labelledby", "expiry-buckets-caption");
  bucketsBox.append(bucketsHead, bucketsCaption, bucketList);
  return { bucketsBox, bucketsTitle, follow, bucketsCaption, bucketList };
}

function createTickBox() {
  const tickBox = el("section", "expiry-tick");
  const tickHead = el("div", "expiry-subhead");
  tickHead.append(el("span", "expiry-subtitle", t("What the latest tick did")));
  const tickPanel = el("div", "tk-panel");
  tickPanel.id = "expiry-tick";
  tickPanel.tabIndex = 0;
  tickPanel.setAttribute("role", "region");
  tickPanel.setAttribute("aria-label", t("What the latest tick did"));
  tickPanel.setAttribute("aria-live", "polite");
  tickBox.append(tickHead, tickPanel);
  return { tickBox, tickPanel };
}

function createChartsBox() {
  const chartsBox = el("section", "expiry-charts");
  const chartsHead = el("div", "expiry-subhead");
  const spanSelect = el("select", "xc-select");
  spanSelect.id = "expiry-span";
  spanSelect.setAttribute("aria-label", t("Chart span (virtual time)"));
  for (const s of CHART_SPANS) {
    const o = el("option", "", t("last {span}", { span: s.label }));
    o.value = String(s.ms);
    spanSelect.append(o);
  }
  spanSelect.value = "60000";
  chartsHead.append(el("span", "expiry-subtitle", t("Over virtual time")), spanSelect);
  const chartsGrid = el("div", "xchart-grid");
  chartsGrid.id = "expiry-charts";
  chartsBox.append(chartsHead, chartsGrid);
  return { chartsBox, spanSelect, chartsGrid };
}

/**
 * Empties `root` and builds the panel in it.
 * @param {HTMLElement} root
 */
export function createExpiryDom(root) {
  root.replaceChildren();
  root.classList.add("expiry-view");
  const head = el("header", "panel-head");
  const summary = el("span", "expiry-summary");
  summary.id = "expiry-summary";
  head.append(el("h2", "panel-title", t("Active expiry")), summary);
  const controlsBox = el("div", "expiry-controls");
  controlsBox.id = "expiry-controls";
  const fieldBox = el("section", "expiry-field");
  const buckets = createBucketsBox();
  const tick = createTickBox();
  const columns = el("div", "expiry-columns");
  columns.append(tick.tickBox, buckets.bucketsBox);
  const callouts = el("ul", "expiry-callouts");
  callouts.id = "expiry-callouts";
  callouts.setAttribute("aria-live", "polite");
  const charts = createChartsBox();
  const monitorBox = el("section", "expiry-monitor");
  monitorBox.id = "expiry-monitor";
  root.append(head, controlsBox, fieldBox, callouts, columns, charts.chartsBox, monitorBox);
  return { root, summary, controlsBox, fieldBox, callouts, ...buckets, ...tick, ...charts, monitorBox };
}

/**
 * @param {ExpiryDom} dom
 * @param {ExpiryState} s
 * @param {number} volatileKeys  the latest count of keys with a TTL
 */
export function drawSummary(dom, s, volatileKeys) {
  const { text, title } = summaryText(s, volatileKeys);
  dom.summary.textContent = text;
  dom.summary.title = title;
}

/**
 * Lazy expiries, stalls and dropped events, newest first.
 * @param {ExpiryDom} dom
 * @param {ExpiryState} s
 */
export function drawCallouts(dom, s) {
  dom.callouts.hidden = s.callouts.length === 0;
  dom.callouts.replaceChildren(
    ...s.callouts.map((c, i) => {
      const li = el("li", `callout callout-${c.kind}${i === 0 ? " is-newest" : ""}`, c.text);
      li.dataset.kind = c.kind;
      li.dataset.key = c.key;
      li.dataset.command = c.command;
      return li;
    }),
  );
  dom.root.dataset.lazy = String(s.lazySeen);
}

/**
 * The bucket list (a fresh <ol> each time: it starts scrolled to its top without setting
 * scrollTop, which would force a layout in the middle of the frame).
 * @param {ExpiryDom} dom
 * @param {ExpiryState} s
 */
export function drawBuckets(dom, s) {
  const picture = bucketsPicture(s);
  if (picture === null) {
    dom.bucketList.replaceChildren();
    dom.bucketsCaption.textContent = "";
    return;
  }
  const fresh = /** @type {HTMLOListElement} */ (dom.bucketList.cloneNode(false));
  dom.bucketList.replaceWith(fresh);
  dom.bucketList = fresh;
  renderBuckets(fresh, picture);
  dom.bucketsTitle.textContent = picture.title;
  dom.follow.hidden = picture.following;
  dom.bucketsCaption.textContent = picture.caption;
  fresh.dataset.mode = picture.mode;
}

/**
 * What the latest tick did; announced to screen readers when stepped, not four times a second.
 * @param {ExpiryDom} dom
 * @param {ExpiryState} s
 */
export function drawTick(dom, s) {
  dom.tickPanel.setAttribute("aria-live", s.playing ? "off" : "polite");
  renderTick(dom.tickPanel, s.tick, tickOptions(s));
  dom.root.dataset.tickAt = s.tick ? String(s.tick.at) : "";
  dom.root.dataset.cycles = s.tick ? String(s.tick.cycles.length) : "0";
}
