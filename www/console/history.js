// @ts-check
// Line history for the console, as linenoise keeps it for redis-cli: every non-empty line is
// remembered unless it repeats the previous one; ArrowUp/ArrowDown walk it, and the line being
// typed before walking is kept as a draft and comes back at the bottom. Pure — no DOM.

/** Lines remembered (redis-cli's linenoise default is 100; a page can afford more). */
export const HISTORY_MAX = 1000;

/**
 * @param {number} [max]  lines remembered
 */
export function createHistory(max = HISTORY_MAX) {
  /** @type {string[]} */
  const lines = [];
  let cursor = 0; // == lines.length when not walking
  let draft = "";

  return {
    /**
     * Remembers a submitted line and stops walking.
     * @param {string} line
     */
    add(line) {
      if (line.trim() !== "" && lines[lines.length - 1] !== line) {
        lines.push(line);
        if (lines.length > max) lines.shift();
      }
      cursor = lines.length;
      draft = "";
    },

    /**
     * The line before the cursor, or null at the oldest. `current` is what the input holds.
     * @param {string} current
     * @returns {string | null}
     */
    previous(current) {
      if (cursor === 0) return null;
      if (cursor === lines.length) draft = current;
      cursor -= 1;
      return lines[cursor];
    },

    /**
     * The line after the cursor; past the newest, the draft. Null when not walking.
     * @returns {string | null}
     */
    next() {
      if (cursor >= lines.length) return null;
      cursor += 1;
      return cursor === lines.length ? draft : lines[cursor];
    },

    /** Everything remembered, oldest first. */
    entries() {
      return lines.slice();
    },
  };
}
