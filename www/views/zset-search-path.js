// @ts-check
// Where a skiplist search went, in ranks.
//
// The engine's `zset_search` event lists the nodes a lookup examined, top level first
// (src/events.rs SearchStep: a 0-based `level`, the node's member and score), exactly as
// t_zset.c zslGetRank() / zslNthInRange() walk them. To draw the walk the view also needs each
// node's rank and whether the search moved onto it or stopped in front of it. Both follow from
// the spans of the nodes it stood on, which the view can read with small windows:
//
//   - standing on x (the header first, rank -1), the node examined at level i is at
//     rank(x) + span(x, i);
//   - the search moved onto that node if the next step is on the same level (a refusal ends
//     the level); when the next step is lower, it moved iff that next node is the examined
//     node's own forward at the lower level (the other possibility, x's forward at the lower
//     level, is at a smaller rank, so the members tell them apart).
//
// This is bookkeeping on the engine's data, not a re-run of the algorithm: every rank is checked
// against the member the engine reported, and a path that no longer matches the set (it changed
// later in the same frame) is reported as unplaced instead of drawn wrongly.

/**
 * One placed step: the event's step with its rank, and whether the search moved onto the node.
 * @typedef {{level: number, member: string, score: number, rank: number, advanced: boolean, uncertain: boolean}} PlacedStep
 */
/**
 * A search path in ranks. `uncertain`: the last step is the case the event cannot decide (see above).
 * @typedef {{steps: PlacedStep[], resultRank: number, levels: number, uncertain: boolean}} PlacedPath
 */
/** @typedef {{member: string, spans: number[]}} PathNode */

/**
 * @param {{command: string, path: ReadonlyArray<{level: number, member: string, score: number}>}} search
 *        a `zset_search` event
 * @param {readonly number[]} headerSpans  the header's span per level (from a `zset_window`)
 * @param {number} len  members in the set
 * @param {(rank: number) => (PathNode | null)} nodeAt  the node at a 0-based rank (a one-entry `zset_window`)
 * @returns {PlacedPath | null}
 */
export function placeSearchPath(search, headerSpans, len, nodeAt) {
  const path = Array.isArray(search?.path) ? search.path : [];
  if (path.length === 0) return null;
  const rankLookup = /rank$/i.test(String(search.command ?? ""));
  /** @type {Map<number, PathNode | null>} */
  const cache = new Map();
  /** @param {number} rank */
  const node = (rank) => {
    if (!cache.has(rank)) cache.set(rank, rank >= 0 && rank < len ? nodeAt(rank) : null);
    return cache.get(rank) ?? null;
  };

  /** @type {{rank: number, spans: readonly number[]}} */
  let standing = { rank: -1, spans: headerSpans };
  let standingLevel = -1; // the level on which the search last moved
  /** @type {PlacedStep[]} */
  const steps = [];
  for (let k = 0; k < path.length; k += 1) {
    const step = path[k];
    const span = standing.spans?.[step.level];
    if (!(span > 0)) return null;
    const rank = standing.rank + span;
    const examined = node(rank);
    if (examined === null || examined.member !== step.member) return null;

    const next = path[k + 1];
    let advanced;
    let uncertain = false;
    if (next === undefined) {
      // The last node examined. A range lookup always ends on the first node in range, in front
      // of which it stopped. A rank lookup stops on the level where it stands on its member:
      //   - if the examined node has a forward link on this level, moving onto it would have
      //     examined that one too: it was refused (the member is where the search stands);
      //   - otherwise, if the search has not moved on this level yet, it stands where it came
      //     down, which is not the member (it would have stopped a level higher): it moved;
      //   - otherwise the event cannot tell (refused after the member, or moved onto a member
      //     that ends the level); it is drawn as a refusal.
      const endsLevel = !(examined.spans?.[step.level] > 0);
      advanced = rankLookup && endsLevel && standingLevel !== step.level;
      uncertain = rankLookup && endsLevel && standingLevel === step.level;
    } else if (next.level === step.level) {
      advanced = true;
    } else {
      const forward = examined.spans?.[next.level];
      const candidate = forward > 0 ? node(rank + forward) : null;
      advanced = candidate !== null && candidate.member === next.member;
    }
    steps.push({ level: step.level, member: step.member, score: step.score, rank, advanced, uncertain });
    if (advanced) {
      standing = { rank, spans: examined.spans };
      standingLevel = step.level;
    }
  }
  const last = steps[steps.length - 1];
  const resultRank = rankLookup ? standing.rank : last.rank;
  const levels = new Set(steps.map((s) => s.level)).size;
  return { steps, resultRank, levels, uncertain: last.uncertain };
}
