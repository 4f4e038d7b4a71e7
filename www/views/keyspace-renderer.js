// @ts-check
// The keyspace picker's renderer: the header, the filter, one row per key (key, type, encoding,
// length, TTL), the empty note and the pager. DOM only: the words come from keyspace-model.js,
// key names go in through textContent. The TTL cells are rewritten only when their text changes.

import { el } from "../dom.js";
import { t } from "../i18n.js";
import { formatTtl, pageTexts, rowOf } from "./keyspace-model.js";

/** @typedef {import("./keyspace-model.js").KeyspaceState} KeyspaceState */
/** @typedef {import("./engine-types.js").KeyInfo} KeyInfo */
/** @typedef {import("./engine-types.js").KeyspacePage} KeyspacePage */
/** @typedef {ReturnType<typeof createKeyspaceDom>} KeyspaceDom */
/**
 * The TTL cells of the rows drawn, with the text each shows.
 * @typedef {Array<{cell: HTMLElement, key: KeyInfo, text: string}>} TtlCells
 */

/**
 * @param {string} text
 * @param {string} label
 */
function pagerButton(text, label) {
  const b = el("button", "btn btn-small", text);
  b.type = "button";
  b.setAttribute("aria-label", label);
  return b;
}

/**
 * Empties `root` and builds the picker in it.
 * @param {HTMLElement} root
 */
export function createKeyspaceDom(root) {
  root.replaceChildren();
  root.classList.add("keyspace-view");
  const head = el("header", "panel-head");
  const summary = el("span", "keyspace-summary");
  summary.id = "keyspace-summary";
  head.append(el("h2", "panel-title", t("Keyspace")), summary);

  const filterForm = el("form", "keyspace-filter");
  filterForm.noValidate = true;
  const filter = el("input", "keyspace-filter-input");
  filter.id = "keyspace-filter";
  filter.type = "search";
  filter.placeholder = t("filter: a glob like user:* or *board*");
  filter.autocomplete = "off";
  filter.spellcheck = false;
  filter.setAttribute("aria-label", t("Filter keys by a glob pattern"));
  filterForm.append(filter);

  const list = el("ul", "keyspace-list");
  list.id = "keyspace-list";
  list.setAttribute("aria-label", t("Keys"));
  const emptyNote = el("p", "keyspace-empty");
  emptyNote.id = "keyspace-empty";

  const footer = el("div", "keyspace-footer");
  const prev = pagerButton("◀", t("Previous keys"));
  const pageText = el("span", "keyspace-page");
  pageText.id = "keyspace-page";
  const next = pagerButton("▶", t("More keys"));
  const info = el("span", "keyspace-info");
  info.id = "keyspace-info";
  info.setAttribute("aria-live", "polite");
  footer.append(prev, pageText, next, info);

  root.append(head, filterForm, list, emptyNote, footer);
  return { root, summary, filterForm, filter, list, emptyNote, prev, pageText, next, info };
}

/**
 * One row per key of the page; a click picks the key.
 * @param {KeyspaceDom} dom
 * @param {KeyspaceState} s
 * @param {KeyspacePage} page
 * @param {(k: KeyInfo) => void} onPick
 * @returns {TtlCells}
 */
export function renderRows(dom, s, page, onPick) {
  /** @type {TtlCells} */
  const ttlCells = [];
  const rows = page.keys.map((k) => {
    const r = rowOf(s, k);
    const li = el("li", "keyspace-item");
    const row = el("button", `keyspace-row type-${k.type}`);
    row.type = "button";
    row.dataset.key = k.key;
    row.dataset.type = k.type;
    row.title = r.title;
    if (r.selected) row.classList.add("is-selected");
    const ttlCell = el("span", r.ttl === t("expired") ? "ks-ttl is-expired" : "ks-ttl", r.ttl);
    ttlCells.push({ cell: ttlCell, key: k, text: r.ttl });
    row.append(el("span", "ks-key", k.key), el("span", `ks-type type-${k.type}`, k.type), el("span", "ks-encoding", k.encoding), el("span", "ks-len", r.length), ttlCell);
    row.addEventListener("click", () => onPick(k));
    li.append(row);
    return li;
  });
  dom.list.replaceChildren(...rows);
  return ttlCells;
}

/**
 * Whether a TTL shown would change at virtual time `clockMs`.
 * @param {TtlCells} cells
 * @param {number} clockMs
 */
export const ttlsChanged = (cells, clockMs) => cells.some(({ key, text }) => formatTtl(key.expire_at_ms, clockMs, key.expired) !== text);

/**
 * Rewrites the TTLs that changed.
 * @param {TtlCells} cells
 * @param {number} clockMs
 */
export function drawTtls(cells, clockMs) {
  for (const c of cells) {
    const text = formatTtl(c.key.expire_at_ms, clockMs, c.key.expired);
    if (text !== c.text) {
      c.text = text;
      c.cell.textContent = text;
      c.cell.classList.toggle("is-expired", text === t("expired"));
    }
  }
}

/**
 * The header, the empty note, the pager and the info line.
 * @param {KeyspaceDom} dom
 * @param {KeyspaceState} s
 * @param {KeyspacePage} page
 */
export function drawPage(dom, s, page) {
  const texts = pageTexts(s, page);
  dom.summary.textContent = texts.summary;
  dom.root.dataset.db = String(s.db);
  dom.root.dataset.total = String(page.total);
  dom.emptyNote.hidden = texts.empty === null;
  dom.list.hidden = texts.empty !== null;
  if (texts.empty !== null) dom.emptyNote.textContent = texts.empty;
  dom.pageText.textContent = texts.range;
  dom.prev.disabled = texts.prevDisabled;
  dom.next.disabled = texts.nextDisabled;
  dom.prev.hidden = dom.next.hidden = texts.pagerHidden;
  dom.info.textContent = s.info;
  dom.info.hidden = s.info === "";
}
