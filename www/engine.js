// @ts-check
// The page's only door to the wasm package (www/pkg, built by scripts/build-web.sh): the only
// module that imports it. It loads and compiles the engine and puts together one engine's API
// from the parts in www/engine/ — none of which imports the package; they get its instances
// from here:
//   engine/recovery.js      the live Playground; a trap recreates it on a fresh instance
//   engine/facade.js        the page engine's API (console, time, snapshots, consoles)
//   engine/lab-adapters.js  engines beside it: scratch engines, the delay-queue lab, lab sims
//   engine/plain.js         raw wasm results → plain objects; the INFO parser (pure)
//
// Two kinds of failure are turned into readable messages instead of a dead page:
//   - loading: a missing file, an HTML 404 page or garbage instead of wasm, a browser without
//     WebAssembly → `EngineLoadError` with a sentence a user can act on;
//   - a trap while running (a Rust panic is a bug, but must not kill the page) → `onCrash` is
//     told, and the engine is recreated on a *fresh module instance* (a trap can leave the old
//     instance's heap half-updated), with the same seed at the virtual time it had reached.
//
// The package is imported dynamically, never statically: a static import that fails would
// take main.js down with it before it could say anything. The wasm is compiled once per page
// however many engines (widgets) it runs. In the single-file build both files come inline
// (assets.js) and the module's own URL is a blob: URL that nothing can be resolved against.

import { INLINE_ASSETS } from "./assets.js";
import { createFacade } from "./engine/facade.js";
import { createLabAdapters } from "./engine/lab-adapters.js";
import { DEFAULT_PROMPT } from "./engine/plain.js";
import { createRecovery } from "./engine/recovery.js";
import { describeError } from "./format.js";
import { t } from "./i18n.js";

/** @typedef {NonNullable<typeof INLINE_ASSETS>} InlineAssets */

/** Where the package is served: next to this module (null in the single-file build). */
const SERVED = INLINE_ASSETS
  ? null
  : {
      glue: new URL("./pkg/redisplay.js", import.meta.url),
      wasm: new URL("./pkg/redisplay_bg.wasm", import.meta.url),
      // {"wasm": bytes} written by scripts/build-web.sh: the download's total when the server
      // compresses it (Content-Length is then the compressed size, the stream the decoded one).
      size: new URL("./pkg/size.json", import.meta.url),
    };

/**
 * How much of the engine's file has arrived: bytes (decoded) and the total when known.
 * @typedef {{loaded: number, total: number | null, done: boolean}} DownloadProgress
 */

/** @type {Set<(p: DownloadProgress) => void>} */
const downloadListeners = new Set();

/**
 * Calls `fn` as the engine's file downloads (the page's loading bar). Returns the unsubscribe.
 * @param {(p: DownloadProgress) => void} fn
 */
export function onEngineDownload(fn) {
  downloadListeners.add(fn);
  return () => downloadListeners.delete(fn);
}

/** @param {DownloadProgress} p */
function tellDownload(p) {
  for (const fn of downloadListeners) fn(p);
}

/**
 * The wasm's size: from a response served as it is (Content-Length), else from size.json.
 * @param {Response} response
 * @param {Promise<number | null>} fromManifest
 */
async function expectedSize(response, fromManifest) {
  const length = Number(response.headers.get("content-length"));
  if (!response.headers.get("content-encoding") && length > 0) return length;
  return fromManifest;
}

/**
 * Counts a copy of the response's body as it arrives, telling the listeners how far it got.
 * (The bytes themselves come from `arrayBuffer()`, which settles once the request completed; a
 * body read to its end by a reader alone can be dropped before the network layer has finished
 * it, and Chromium then logs the fetch as aborted. For the same reason the engine is not
 * compiled with WebAssembly.compileStreaming.)
 * @param {ReadableStream<Uint8Array>} copy
 * @param {Promise<number | null>} totalSoon  the total, once known (the count does not wait for it)
 */
async function countDownload(copy, totalSoon) {
  /** @type {number | null} */
  let total = null;
  totalSoon.then((t) => {
    total = t;
  });
  const reader = copy.getReader();
  let loaded = 0;
  tellDownload({ loaded, total, done: false });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    loaded += value.byteLength;
    tellDownload({ loaded, total, done: false });
  }
}

/** Why the engine could not start, in words for the page. `cause` keeps the original error. */
export class EngineLoadError extends Error {
  /**
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(message, options) {
    super(message, options);
    this.name = "EngineLoadError";
  }
}

/**
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
function decodeBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** @param {InlineAssets} inline */
async function compileInlineWasm(inline) {
  try {
    return await WebAssembly.compile(decodeBase64(inline.wasm));
  } catch (err) {
    throw new EngineLoadError(t("The engine inlined in this file is not valid WebAssembly ({error}); the file may be damaged.", { error: describeError(err) }), {
      cause: err,
    });
  }
}

/**
 * The engine file read from disk when this module runs from a file: URL (Node, which has no
 * fetch for files): the in-process client (client/redis.js) under node:test.
 * @param {URL} url
 */
async function compileWasmFile(url) {
  let bytes;
  try {
    const fs = "node:fs/promises";
    const { readFile } = await import(/* @vite-ignore */ fs);
    bytes = await readFile(url);
  } catch (err) {
    throw new EngineLoadError(`The engine file (${url.pathname}) could not be read (${describeError(err)}); build it with ./scripts/build-web.sh.`, {
      cause: err,
    });
  }
  try {
    return await WebAssembly.compile(bytes);
  } catch (err) {
    throw new EngineLoadError(`The engine file (${url.pathname}) is not valid WebAssembly (${describeError(err)}); rebuild it with ./scripts/build-web.sh.`, {
      cause: err,
    });
  }
}

/** @param {URL} url */
async function compileWasm(url) {
  if (url.protocol === "file:") return compileWasmFile(url);
  // The size file is asked for alongside the engine, not after it.
  const sizeSoon = fetch(/** @type {NonNullable<typeof SERVED>} */ (SERVED).size)
    .then((r) => (r.ok ? r.json() : null))
    .then((j) => (Number(j?.wasm) > 0 ? Number(j.wasm) : null))
    .catch(() => null);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new EngineLoadError(t("The engine file ({file}) could not be downloaded: {error}.", { file: url.pathname, error: describeError(err) }), { cause: err });
  }
  if (!response.ok) {
    throw new EngineLoadError(
      t("The engine file ({file}) could not be loaded: the server answered HTTP {status}. If you are running from a checkout, build it with ./scripts/build-web.sh.", {
        file: url.pathname,
        status: response.status,
      }),
    );
  }
  try {
    if (response.body) countDownload(response.clone().body ?? new ReadableStream(), expectedSize(response, sizeSoon)).catch(() => {});
    const bytes = await response.arrayBuffer();
    tellDownload({ loaded: bytes.byteLength, total: bytes.byteLength, done: true });
    return await WebAssembly.compile(bytes);
  } catch (err) {
    throw new EngineLoadError(
      t(
        "The engine file ({file}) is not valid WebAssembly, so the engine cannot start ({error}). The file may be damaged or from a broken build; rebuild it with ./scripts/build-web.sh or reload the page.",
        { file: url.pathname, error: describeError(err) },
      ),
      { cause: err },
    );
  }
}

/** @type {Promise<WebAssembly.Module> | null} the compiled engine, shared by every engine of the page; a failure is not kept */
let compiled = null;
function compiledWasm() {
  if (compiled === null) {
    compiled = (INLINE_ASSETS ? compileInlineWasm(INLINE_ASSETS) : compileWasm(/** @type {NonNullable<typeof SERVED>} */ (SERVED).wasm)).catch((err) => {
      compiled = null;
      throw err;
    });
  }
  return compiled;
}

/** Fresh glue instances made so far (each recreated engine gets its own module and memory). */
let freshInstances = 0;

/** @type {string | null} */
let inlineGlueUrl = null;

/**
 * @param {InlineAssets} inline
 * @param {number} generation
 */
function importInlineGlue(inline, generation) {
  const blobUrl = () => URL.createObjectURL(new Blob([inline.glue], { type: "text/javascript" }));
  if (generation !== 0) return import(blobUrl());
  inlineGlueUrl ??= blobUrl();
  return import(inlineGlueUrl);
}

/**
 * A fresh instance of the glue module and of the wasm: generation 0 is the normal import,
 * later generations import the glue under another URL so they get their own wasm memory.
 * @param {WebAssembly.Module} wasmModule
 * @param {number} generation
 * @returns {Promise<typeof import("./pkg/redisplay")>}
 */
async function instantiate(wasmModule, generation) {
  let pkg;
  try {
    if (INLINE_ASSETS) {
      // A blob: URL is a module of its own each time: generation 0 shares one, as served.
      pkg = await importInlineGlue(INLINE_ASSETS, generation);
    } else {
      const glue = /** @type {NonNullable<typeof SERVED>} */ (SERVED).glue;
      freshInstances += generation === 0 ? 0 : 1;
      pkg = await import(generation === 0 ? glue.href : `${glue.href}?instance=${freshInstances}`);
    }
  } catch (err) {
    throw new EngineLoadError(
      t("The engine's JavaScript ({file}) could not be loaded ({error}). If you are running from a checkout, build it with ./scripts/build-web.sh.", {
        file: SERVED?.glue.pathname ?? t("inlined in this file"),
        error: describeError(err),
      }),
      { cause: err },
    );
  }
  try {
    await pkg.default({ module_or_path: wasmModule });
  } catch (err) {
    throw new EngineLoadError(
      t(
        "The engine could not be started ({error}). The WebAssembly file and its JavaScript glue probably come from different builds; rebuild with ./scripts/build-web.sh.",
        { error: describeError(err) },
      ),
      { cause: err },
    );
  }
  return pkg;
}

/**
 * @typedef {object} EngineOptions
 * @property {number} seed      the engine's RNG seed
 * @property {number} startMs   the virtual clock's start, Unix ms
 * @property {(info: import("./engine/recovery").CrashInfo) => void} [onCrash]
 *           called when a call into the engine threw; the engine is being recreated
 * @property {() => void} [onRecovered]  called once the recreated engine is ready
 */

/**
 * Loads the wasm and creates a playground engine: the facade's methods and the lab adapters',
 * plus its `seed` and `startMs`.
 *
 * @param {EngineOptions} options
 * @throws {EngineLoadError} when the engine cannot be loaded at all
 */
export async function createEngine({ seed, startMs, onCrash = () => {}, onRecovered = () => {} }) {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.compile !== "function") {
    throw new EngineLoadError(
      t("This browser cannot run WebAssembly, which the playground's engine needs. Any current Chrome, Firefox, Safari or Edge can."),
    );
  }
  const wasmModule = await compiledWasm();
  const pkg = await instantiate(wasmModule, 0);
  const recovery = createRecovery({
    pkg,
    instantiate: (generation) => instantiate(wasmModule, generation),
    seed,
    startMs,
    onCrash,
    onRecovered,
    defaultPrompt: DEFAULT_PROMPT,
  });
  return { seed, startMs, ...createFacade(recovery), ...createLabAdapters(recovery, { seed, startMs }) };
}

/**
 * The wasm package itself, loaded and compiled as the page loads it (served, inlined, or from
 * disk under Node): for the in-process client (client/redis.js), which drives `RespServer`.
 * @returns {Promise<typeof import("./pkg/redisplay")>}
 * @throws {EngineLoadError} when the engine cannot be loaded
 */
export async function loadEnginePackage() {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.compile !== "function") {
    throw new EngineLoadError("This JavaScript runtime cannot run WebAssembly, which redisplay's engine needs.");
  }
  return instantiate(await compiledWasm(), 0);
}

/** What createEngine() resolves to: the API every part of the page uses. */
/** @typedef {Awaited<ReturnType<typeof createEngine>>} Engine */
