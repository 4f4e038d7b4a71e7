// @ts-check
// Number and time formatting shared by the views (one copy each). Pure: no DOM.

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * 12345 → "12,345" (en-US grouping, whatever the reader's locale, so screenshots and tests agree).
 * @param {number | bigint | string} n
 * @returns {string}
 */
export function number(n) {
  return numberFormat.format(typeof n === "string" ? Number(n) : n);
}

/**
 * An error in words for a message the user reads: `"TypeError: x is not a function"`; anything
 * thrown that is not an Error (a string, a wasm-bindgen JsValue) as its text.
 * @param {unknown} err
 * @returns {string}
 */
export function describeError(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
