// The keyspace picker: a page of the console's current database — key, type, encoding,
// length, TTL — with a glob filter. Clicking a sorted set shows it in the sorted-set view
// (the selection lives in the store); other types get a one-line description.
//
// It asks the engine (through main.js's read-only `source`) for one page at a time, and only
// when something could have changed it: a keyspace event in its db, an expiry, a command (which
// may SELECT another db or FLUSHDB), a new filter or page. While the clock plays, a page changed
// by the engine is fetched again at most every PLAYING_REFETCH_MS (a workload or an expiry wave
// changes it every frame); paused, or after the user's own input, at once. TTLs count down from
// the snapshot's absolute expire times as the virtual clock moves, without asking the engine.

/** Keys on one page. */
export const PAGE_SIZE = 50;

/** While the clock plays, engine-driven refetches are at most this often (real ms): 4× a second. */
export const PLAYING_REFETCH_MS = 250;

const number = (n) => Number(n).toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const UNITS = { string: "byte", list: "item", hash: "field", set: "member", zset: "member" };

/** "3 members", "1 byte". */
export function formatLength(type, len) {
  const unit = UNITS[type] ?? "element";
  return `${number(len)} ${unit}${len === 1 ? "" : "s"}`;
}

/** What the TTL column shows for an absolute expire time at virtual time `nowMs`. */
export function formatTtl(expireAtMs, nowMs, expiredFlag = false) {
  if (expireAtMs === null || expireAtMs === undefined) return "";
  const left = expireAtMs - nowMs;
  if (expiredFlag || left < 0) return "expired";
  if (left < 10_000) return `${(Math.floor(left / 100) / 10).toFixed(1)}s`;
  if (left < 60_000) return `${Math.floor(left / 1000)}s`;
  if (left < 3_600_000) return `${Math.floor(left / 60_000)}m ${Math.floor((left % 60_000) / 1000)}s`;
  if (left < 86_400_000) return `${Math.floor(left / 3_600_000)}h ${Math.floor((left % 3_600_000) / 60_000)}m`;
  return `${number(Math.floor(left / 86_400_000))}d`;
}

/**
 * @param {HTMLElement} root
 * @param {object} deps
 * @param {{keyspace(db: number, offset: number, count: number, pattern?: string|null): object,
 *          currentDb(): number}} deps.source
 * @param {{get(): object, set(patch: object): boolean}} deps.store
 * @param {() => void} deps.invalidate  asks the loop for a frame (after input)
 * @param {() => number} [deps.now]     real time in ms (tests may pin it)
 */
export function createKeyspaceView(root, { source, store, invalidate, now = () => performance.now() }) {
  root.replaceChildren();
  root.classList.add("keyspace-view");

  const head = el("header", "panel-head");
  const title = el("h2", "panel-title", "Keyspace");
  const summary = el("span", "keyspace-summary");
  summary.id = "keyspace-summary";
  head.append(title, summary);

  const filterForm = el("form", "keyspace-filter");
  filterForm.noValidate = true;
  const filter = el("input", "keyspace-filter-input");
  filter.id = "keyspace-filter";
  filter.type = "search";
  filter.placeholder = "filter: a glob like user:* or *board*";
  filter.autocomplete = "off";
  filter.spellcheck = false;
  filter.setAttribute("aria-label", "Filter keys by a glob pattern");
  filterForm.append(filter);

  const list = el("ul", "keyspace-list");
  list.id = "keyspace-list";
  list.setAttribute("aria-label", "Keys");

  const emptyNote = el("p", "keyspace-empty");
  emptyNote.id = "keyspace-empty";

  const footer = el("div", "keyspace-footer");
  const prev = el("button", "btn btn-small", "◀");
  prev.type = "button";
  prev.setAttribute("aria-label", "Previous keys");
  const pageText = el("span", "keyspace-page");
  pageText.id = "keyspace-page";
  const next = el("button", "btn btn-small", "▶");
  next.type = "button";
  next.setAttribute("aria-label", "More keys");
  const info = el("span", "keyspace-info");
  info.id = "keyspace-info";
  info.setAttribute("aria-live", "polite");
  footer.append(prev, pageText, next, info);

  root.append(head, filterForm, list, emptyNote, footer);

  let db = source.currentDb();
  let offset = 0;
  let pattern = null;
  let page = null;
  let needFetch = true;
  let urgent = true; // the user asked (filter, page, pick, db change): fetch without waiting
  let fetchedAt = -Infinity; // real ms of the last fetch
  let fetches = 0;
  let dirty = true;
  let ttlTexts = []; // what the TTL cells show, to redraw only when a text changes
  let ttlCells = [];
  let selected = { db: null, key: null };
  let infoText = "";
  let clockMs = 0;

  function refetch() {
    needFetch = true;
    urgent = true;
    dirty = true;
    invalidate();
  }

  filterForm.addEventListener("submit", (event) => event.preventDefault());
  filter.addEventListener("input", () => {
    const text = filter.value.trim();
    pattern = text === "" ? null : text;
    offset = 0;
    refetch();
  });
  prev.addEventListener("click", () => {
    offset = Math.max(0, offset - PAGE_SIZE);
    refetch();
  });
  next.addEventListener("click", () => {
    offset += PAGE_SIZE;
    refetch();
  });

  function pick(k) {
    if (k.type === "zset") {
      infoText = "";
      store.set({ selectedDb: db, selectedKey: k.key });
    } else {
      infoText = `${k.key}: a ${k.type} (${k.encoding}, ${formatLength(k.type, k.len)}). The sorted-set view shows sorted sets — try ZADD.`;
    }
    dirty = true;
    invalidate();
  }

  function fetchPage() {
    needFetch = false;
    urgent = false;
    fetchedAt = now();
    fetches += 1;
    root.dataset.fetches = String(fetches);
    page = source.keyspace(db, offset, PAGE_SIZE, pattern);
    if (page.keys.length === 0 && offset > 0) {
      // The page emptied (keys deleted, a new filter): go back to the last page that has keys.
      offset = Math.max(0, offset - PAGE_SIZE);
      page = source.keyspace(db, offset, PAGE_SIZE, pattern);
    }
    dirty = true;
  }

  function renderRows() {
    ttlCells = [];
    ttlTexts = [];
    const rows = page.keys.map((k) => {
      const li = el("li", "keyspace-item");
      const row = el("button", `keyspace-row type-${k.type}`);
      row.type = "button";
      row.dataset.key = k.key;
      row.dataset.type = k.type;
      row.title = k.type === "zset" ? `Show “${k.key}” in the sorted-set view` : `${k.key} (${k.type})`;
      if (selected.db === db && selected.key === k.key) row.classList.add("is-selected");
      const ttl = formatTtl(k.expire_at_ms, clockMs, k.expired);
      const ttlCell = el("span", ttl === "expired" ? "ks-ttl is-expired" : "ks-ttl", ttl);
      ttlCells.push({ cell: ttlCell, key: k });
      ttlTexts.push(ttl);
      row.append(
        el("span", "ks-key", k.key),
        el("span", `ks-type type-${k.type}`, k.type),
        el("span", "ks-encoding", k.encoding),
        el("span", "ks-len", formatLength(k.type, k.len)),
        ttlCell,
      );
      row.addEventListener("click", () => pick(k));
      li.append(row);
      return li;
    });
    list.replaceChildren(...rows);
  }

  function updateTtls() {
    let changed = false;
    ttlCells.forEach(({ key }, i) => {
      const text = formatTtl(key.expire_at_ms, clockMs, key.expired);
      if (text !== ttlTexts[i]) changed = true;
    });
    return changed;
  }

  function drawTtls() {
    ttlCells.forEach(({ cell, key }, i) => {
      const text = formatTtl(key.expire_at_ms, clockMs, key.expired);
      if (text !== ttlTexts[i]) {
        ttlTexts[i] = text;
        cell.textContent = text;
        cell.classList.toggle("is-expired", text === "expired");
      }
    });
  }

  let playing = false;
  let rendered = null; // the page object the rows were built from
  let renderedSelection = "";

  return {
    update(events, state) {
      let commands = false;
      for (const e of events) {
        if (e.kind === "keyspace" || e.kind === "expired") {
          if (e.db === db) needFetch = true;
        } else if (e.kind === "command") {
          commands = true;
        }
      }
      if (commands) {
        // A command may have SELECTed another db (asked once per batch, not per command).
        const current = source.currentDb();
        if (current !== db) {
          db = current;
          offset = 0;
          urgent = true;
        }
        needFetch = true;
      }
      if (state.selectedKey !== selected.key || state.selectedDb !== selected.db) {
        selected = { db: state.selectedDb, key: state.selectedKey };
        dirty = true;
      }
      playing = !state.paused;
      if (needFetch && (urgent || !playing || page === null || now() - fetchedAt >= PLAYING_REFETCH_MS)) fetchPage();
      clockMs = state.clock.now;
      if (!dirty && page !== null && updateTtls()) dirty = true;
      return dirty;
    },

    draw() {
      dirty = false;
      if (page === null) return;
      const selectionKey = `${selected.db}\u0000${selected.key}`;
      if (rendered !== page || renderedSelection !== selectionKey) {
        rendered = page;
        renderedSelection = selectionKey;
        renderRows();
      } else {
        drawTtls();
      }
      const matched = pattern === null ? "" : ` · filter ${pattern}`;
      summary.textContent = `db ${db} · ${number(page.total)} key${page.total === 1 ? "" : "s"} · ${number(page.volatile)} with a TTL${matched}`;
      root.dataset.db = String(db);
      root.dataset.total = String(page.total);
      const n = page.keys.length;
      emptyNote.hidden = n > 0;
      list.hidden = n === 0;
      if (n === 0) {
        emptyNote.textContent =
          page.total === 0
            ? `db ${db} is empty. Try: ZADD leaderboard 10 alice 20 bob 30 carol`
            : `No key matches ${pattern ?? "the filter"}.`;
      }
      const last = offset + n;
      pageText.textContent = n === 0 ? "" : `${number(offset + 1)}–${number(last)}${pattern === null ? ` of ${number(page.total)}` : ""}`;
      prev.disabled = offset === 0;
      // With a filter the total of matches is unknown: a full page may have more after it.
      next.disabled = pattern === null ? last >= page.total : n < PAGE_SIZE;
      prev.hidden = next.hidden = offset === 0 && next.disabled;
      info.textContent = infoText;
      info.hidden = infoText === "";
    },

    /** A refetch waits for its turn (the loop keeps running frames until it is done). */
    animating() {
      return needFetch;
    },

    /** Fetch again (after an engine reset). */
    refresh() {
      db = source.currentDb();
      offset = 0;
      refetch();
    },
  };
}
