// @ts-check
// Where the engine's files come from. Served or installed, they sit next to these modules:
// engine.js fetches pkg/redisplay_bg.wasm and imports pkg/redisplay.js, the widget links its
// style sheets, the lab player fetches labs/data/<id>.json. The single-file build
// (scripts/build-single.sh) replaces this module with one that holds them inline, because a page
// opened from file:// cannot fetch its neighbours.

/**
 * `null` here; in the single-file build `{wasm: base64, glue: the glue's JS source,
 * css: {"style.css": text, …}, labs: {id: lab object}, labIndex: data/index.json}`.
 * @type {{wasm: string, glue: string, css?: Record<string, string>, labs?: Record<string, unknown>, labIndex?: unknown} | null}
 */
export const INLINE_ASSETS = null;
