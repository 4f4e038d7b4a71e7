// @ts-check
// The words of the page's RDB file actions (rdb-actions.js): the size cap, what a load did or
// why it did not, a file's name fit to show. Pure: no DOM, no engine (node:test imports it).

import { number } from "./format.js";
import { t } from "./i18n.js";

/**
 * The largest RDB file the page loads: 4 MiB. The engine would read more, but a loaded file is
 * kept in the session (so a reload replays it — session.js, as base64 in this tab's history
 * entry and in an exported session file, both bounded), and a playground's dataset is small.
 */
export const MAX_RDB_BYTES = 4 * 1024 * 1024;

/** The name the download gets: redis-server's default `dbfilename`. */
export const DOWNLOAD_NAME = "dump.rdb";

/** Characters of a file's name shown at most. */
const MAX_NAME = 60;

/**
 * A file's name as the page shows it, in quotes: control characters as `?`, a long name cut
 * with `…` in its middle (its end is the extension). It still goes to the page as text only.
 * @param {string} name
 */
export function fileLabel(name) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  const clean = String(name).replace(/[\u0000-\u001f\u007f-\u009f]/g, "?") || t("the file");
  const chars = [...clean];
  const shown = chars.length <= MAX_NAME ? clean : `${chars.slice(0, MAX_NAME - 16).join("")}…${chars.slice(-15).join("")}`;
  return `“${shown}”`;
}

/**
 * A size in words: "812 bytes", "37.4 KB", "12.0 MB" (1024-based, as MAX_RDB_BYTES is).
 * @param {number} bytes
 */
export function sizeText(bytes) {
  if (bytes < 1024) return bytes === 1 ? t("1 byte") : t("{n} bytes", { n: number(bytes) });
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Why a file is not even read, or null: empty, or past the cap.
 * @param {{name: string, size: number}} file
 * @returns {string | null}
 */
export function fileProblem({ name, size }) {
  if (size === 0) return t("{file} is empty: it is not an RDB file. Nothing changed.", { file: fileLabel(name) });
  if (size > MAX_RDB_BYTES) {
    // Just past the cap, both round to the same "4.0 MB": then in bytes.
    const close = sizeText(size) === sizeText(MAX_RDB_BYTES);
    const [is, cap] = close
      ? [t("{n} bytes", { n: number(size) }), t("{n} bytes", { n: number(MAX_RDB_BYTES) })]
      : [sizeText(size), sizeText(MAX_RDB_BYTES)];
    return t("{file} is {size}: the playground loads RDB files up to {cap}. Nothing changed.", { file: fileLabel(name), size: is, cap });
  }
  return null;
}

/** @param {number} n */
const keysText = (n) => (n === 1 ? t("1 key") : t("{n} keys", { n: number(n) }));
/** @param {number} n */
const librariesText = (n) => (n === 1 ? t("1 function library") : t("{n} function libraries", { n: number(n) }));

/**
 * What a load did in a few words: "12 keys, 1 function library; 1 key had expired: skipped, as
 * a master does".
 * @param {import("./engine/plain").LoadResult & {ok: true}} r
 */
export function loadSummary(r) {
  const parts = [keysText(r.keysLoaded)];
  if (r.libraries > 0) parts.push(librariesText(r.libraries));
  const skipped = [];
  if (r.keysExpired > 0) {
    skipped.push(
      r.keysExpired === 1
        ? t("1 key had expired: skipped, as a master does")
        : t("{n} keys had expired: skipped, as a master does", { n: number(r.keysExpired) }),
    );
  }
  if (r.emptyKeysSkipped > 0) {
    skipped.push(r.emptyKeysSkipped === 1 ? t("1 empty key skipped") : t("{n} empty keys skipped", { n: number(r.emptyKeysSkipped) }));
  }
  return [parts.join(t(", ")), ...skipped].join(t("; "));
}

/**
 * What a load did, for the console and the status line: `(redisplay) loaded “dump.rdb”
 * (RDB version 10) as a restarted redis-server would: 12 keys; 1 key had expired: skipped, …`.
 * @param {string} name
 * @param {import("./engine/plain").LoadResult & {ok: true}} r
 */
export function loadedText(name, r) {
  return (
    t("(redisplay) loaded {file} (RDB version {version}) as a restarted redis-server would: {summary}.", {
      file: fileLabel(name),
      version: r.version,
      summary: loadSummary(r),
    }) +
    t(" It replaced every key and function; the configuration and the clients stay.")
  );
}

/**
 * The same, for a file loaded again as a session is replayed (its name is not kept).
 * @param {import("./engine/plain").LoadResult} r
 */
export function replayedText(r) {
  return r.ok
    ? t("(redisplay) the RDB file loaded in this session, loaded again: {summary}.", { summary: loadSummary(r) })
    : t("(redisplay) the RDB file loaded in this session did not load again: {error}", { error: r.error });
}

/**
 * Why a file did not load, with Redis's words for it.
 * @param {string} name
 * @param {string} error
 */
export function failedText(name, error) {
  const why = String(error).trim();
  return t("{file} did not load: {why} Nothing changed.", { file: fileLabel(name), why: why.endsWith(".") ? why : `${why}.` });
}

/**
 * What the server holds, from INFO keyspace and memory (parsed: `{db0: "keys=3,expires=1,…",
 * number_of_libraries: "1"}`): keys in every db and function libraries.
 * @param {Record<string, string>} info
 */
export function datasetSize(info) {
  let keys = 0;
  for (const [field, value] of Object.entries(info)) {
    const m = /^db\d+$/.test(field) ? /(?:^|,)keys=(\d+)/.exec(value) : null;
    if (m) keys += Number(m[1]);
  }
  return { keys, libraries: Number(info.number_of_libraries) || 0 };
}

/**
 * The confirmation asked before a file replaces a dataset that is not empty.
 * @param {string} name
 * @param {{keys: number, libraries: number}} now  datasetSize()
 */
export function replaceQuestion(name, { keys, libraries }) {
  const held = libraries > 0 ? t("{a} and {b}", { a: keysText(keys), b: librariesText(libraries) }) : keysText(keys);
  return {
    title: t("Load {file}?", { file: fileLabel(name) }),
    text: t(
      "Its keys and functions replace everything the server holds now ({held}), as a redis-server restarted on this file would. To keep the current data, download it first (Share → Download {download}).",
      { held, download: DOWNLOAD_NAME },
    ),
    confirm: t("Replace the data"),
    cancel: t("Keep the current data"),
  };
}

/**
 * Whether a drag carries files (not text or a link dragged within the page).
 * @param {{types?: ArrayLike<string> | null} | null | undefined} dataTransfer
 */
export function carriesFiles(dataTransfer) {
  return Array.from(dataTransfer?.types ?? []).includes("Files");
}
