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
  if (text !== undefined) node.textContent = String(text);
  return node;
}
