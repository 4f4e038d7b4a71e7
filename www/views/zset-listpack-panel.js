// The sorted-set view's listpack panel: a small sorted set drawn as what it is — one flat
// array of member, score, member, score… in score order — with how full it is against
// zset-max-listpack-entries and zset-max-listpack-value, the limits past which Redis converts
// it to a skiplist. DOM only (a listpack page is at most a few hundred entries); every member
// is written with textContent.

const number = (n) => Number(n).toLocaleString("en-US");

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A score as redis-cli would print it in a reply (inf, -inf, shortest round-trip digits). */
export function formatScore(score) {
  if (typeof score !== "number") return String(score);
  if (score === Infinity) return "inf";
  if (score === -Infinity) return "-inf";
  return String(score);
}

function utf8Length(text) {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

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
  entries.setAttribute("aria-label", "Listpack entries in order");
  const explain = el(
    "p",
    "zset-explain",
    "A small sorted set is one flat listpack: member, score, member, score… kept in score order. " +
      "ZADD scans it for the spot and shifts the rest — cheap while it is small. Past either limit Redis " +
      "converts it to a skiplist (plus a hash table for ZSCORE).",
  );
  root.append(meter, entries, explain);

  return {
    root,

    render(win, landedMember) {
      countText.textContent = `${number(win.len)} / ${number(win.max_entries)} entries`;
      barFill.style.width = `${Math.min(100, Math.max(0, (win.len / Math.max(1, win.max_entries)) * 100))}%`;
      bar.classList.toggle("is-full", win.len >= win.max_entries);
      let longest = 0;
      for (const e of win.entries) longest = Math.max(longest, utf8Length(e.member));
      valueText.textContent =
        win.len <= win.entries.length
          ? `longest member ${number(longest)} / ${number(win.max_value)} bytes`
          : `members up to ${number(win.max_value)} bytes`;
      const items = win.entries.map((e) => {
        const item = el("li", "lp-entry");
        item.dataset.rank = String(e.rank);
        item.title = `rank ${e.rank}: ${e.member} = ${formatScore(e.score)}`;
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
