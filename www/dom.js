// @ts-check
// The DOM helpers every view and panel shares (one copy, not one per view). User text reaches the
// document only through textContent, never as markup.

/**
 * A new element with an optional class and text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]  none when empty, null or left out
 * @param {string | number} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) setText(node, text);
  return node;
}

// Bidirectional-text controls (U+061C, U+200E/F, U+202A–E, U+2066–9). In user text (a key, a
// member, a typed line) one of them could reorder what is drawn after it — `SET "v<RLO>" live`
// displayed as `SET "v "live` — so each is put in an isolating span of its own: its effect ends
// with the span, the characters around it are drawn in the order they were typed, and a mark
// (styled by `.bidi-control`) shows where it is. The text itself (textContent, a copy) is kept
// as it was, control characters included.
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const BIDI_CONTROLS_ALL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** The short names shown for each control. */
const BIDI_NAMES = Object.freeze({
  "\u061C": "ALM",
  "\u200E": "LRM",
  "\u200F": "RLM",
  "\u202A": "LRE",
  "\u202B": "RLE",
  "\u202C": "PDF",
  "\u202D": "LRO",
  "\u202E": "RLO",
  "\u2066": "LRI",
  "\u2067": "RLI",
  "\u2068": "FSI",
  "\u2069": "PDI",
});

/**
 * Whether `text` holds a bidi control character.
 * @param {string} text
 */
export function hasBidiControls(text) {
  return BIDI_CONTROLS.test(text);
}

/**
 * `text` with each bidi control replaced by a visible mark like `⟨RLO⟩` (for canvas labels and
 * attributes, where no span can isolate it).
 * @param {string} text
 */
export function showBidiControls(text) {
  return text.replace(BIDI_CONTROLS_ALL, (c) => `⟨${BIDI_NAMES[/** @type {keyof typeof BIDI_NAMES} */ (c)]}⟩`);
}

/**
 * Sets a node's text, each bidi control isolated in a span of its own (see above); plain text
 * is set as textContent.
 * @param {Node} node
 * @param {string | number} value
 */
export function setText(node, value) {
  const text = String(value);
  if (!BIDI_CONTROLS.test(text)) {
    node.textContent = text;
    return;
  }
  /** @type {Node[]} */
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(BIDI_CONTROLS_ALL)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(document.createTextNode(text.slice(last, at)));
    const mark = document.createElement("span");
    mark.className = "bidi-control";
    mark.dataset.name = BIDI_NAMES[/** @type {keyof typeof BIDI_NAMES} */ (m[0])];
    mark.title = `U+${m[0].codePointAt(0)?.toString(16).toUpperCase()} (${mark.dataset.name}), a bidirectional-text control`;
    mark.textContent = m[0];
    parts.push(mark);
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(document.createTextNode(text.slice(last)));
  if (node instanceof Element) node.replaceChildren(...parts);
  else node.textContent = text;
}
