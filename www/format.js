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
