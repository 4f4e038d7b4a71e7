// @ts-check
// The page's RDB file: the Share menu's "Download dump.rdb" (the server's RDB file as SAVE would
// write it now, which a real redis-server 7.0 loads) and "Load an RDB file…", and a file
// dropped anywhere on the page (a drop target covers it while a file is dragged over).
//
// Loading is what a restart on that file would do (src/command/rdb.rs `load_rdb_file`): the
// keys and functions become the file's, keys already expired are skipped, and a file that does
// not load — corrupt, cut short, not an RDB, from a newer Redis, past the size cap — changes
// nothing and is told in Redis's words. With data in the server it asks first. Text only:
// a file's name is the user's (textContent, through notices and the console's notes).

import { confirmDiscard } from "./confirm.js";
import { t } from "./i18n.js";
import { DOWNLOAD_NAME, MAX_RDB_BYTES, carriesFiles, datasetSize, failedText, fileProblem, loadedText, replaceQuestion, sizeText } from "./rdb-file.js";

/**
 * @typedef {object} RdbHost
 * @property {() => Uint8Array} rdbImage
 * @property {(bytes: Uint8Array) => import("./engine/plain").LoadResult} loadRdb
 * @property {(sections: string) => Record<string, string>} info  INFO, not counted (a peek)
 * @property {(text: string) => void} note  a line in the first console
 * @property {(text: string, kind: import("./notices").NoticeKind) => void} notify
 * @property {() => void} [loaded]  after a file loaded (the page keeps the session then)
 */

/**
 * Wires the Share menu's RDB controls (#rdb-download, #rdb-load, #rdb-note, #rdb-status) and
 * the page's drop target (#drop-target). Returns `loadFile(file)` (what a pick or a drop runs).
 * @param {Document} doc
 * @param {RdbHost} host
 */
export function setupRdbActions(doc, host) {
  const status = doc.getElementById("rdb-status");
  /** @param {string} text */
  const say = (text) => {
    if (status) status.textContent = text;
  };
  const note = doc.getElementById("rdb-note");
  if (note) {
    note.textContent = t("Or drop one on the page (up to {size}). Loading replaces every key and function, as a restart on that file would.", { size: sizeText(MAX_RDB_BYTES) });
  }

  doc.getElementById("rdb-download")?.addEventListener("click", () => {
    const bytes = host.rdbImage();
    if (bytes.length === 0) {
      say(t("The engine is restarting; try again in a moment."));
      return;
    }
    const a = doc.createElement("a");
    a.href = URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: "application/octet-stream" }));
    a.download = DOWNLOAD_NAME;
    doc.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    say(t("Downloaded {file} ({size}): redis-server 7.0 loads it from its dir at start.", { file: DOWNLOAD_NAME, size: sizeText(bytes.length) }));
  });

  let busy = false;
  /**
   * Reads, asks (when there is data), loads, and says what happened.
   * @param {File} file
   */
  async function loadFile(file) {
    if (busy) {
      say(t("Another file is being loaded; try again once it is done."));
      return;
    }
    busy = true;
    /** @param {string} text */
    const fail = (text) => {
      say(text);
      host.notify(text, "error");
      host.note(`(redisplay) ${text}`);
    };
    try {
      const problem = fileProblem(file);
      if (problem) {
        fail(problem);
        return;
      }
      let bytes;
      try {
        bytes = new Uint8Array(await file.arrayBuffer());
      } catch (err) {
        fail(failedText(file.name, t("the browser could not read it ({why})", { why: err instanceof Error ? err.message : String(err) })));
        return;
      }
      const held = datasetSize(host.info("keyspace memory"));
      if ((held.keys > 0 || held.libraries > 0) && !(await confirmDiscard(replaceQuestion(file.name, held)))) {
        say(t("Nothing loaded: the current data stays."));
        return;
      }
      const r = host.loadRdb(bytes);
      if (!r.ok) {
        // A session file given here by mistake: say where it goes.
        const session = /\.json$/i.test(file.name) ? t(" (A redisplay session file opens with Share → Import a file.)") : "";
        fail(failedText(file.name, r.error) + session);
        return;
      }
      const text = loadedText(file.name, r);
      // The status line says it without the console's "(redisplay)", as a sentence.
      const said = text.replace(/^\(redisplay\) /, "");
      say(said.charAt(0).toUpperCase() + said.slice(1));
      host.note(text);
      host.loaded?.();
    } finally {
      busy = false;
    }
  }

  const input = doc.getElementById("rdb-load");
  if (input instanceof HTMLInputElement) {
    input.addEventListener("change", async () => {
      const file = input.files?.[0];
      // The same file picked again is a change again.
      input.value = "";
      if (file) await loadFile(file);
    });
  }
  setupDropTarget(doc, loadFile, (text) => {
    say(text);
    host.notify(text, "warning");
  });
  return { loadFile };
}

/**
 * A file dragged over the page shows the drop target over all of it; dropped, it is loaded.
 * Drags that carry no files (text, a link) are left to the page.
 * @param {Document} doc
 * @param {(file: File) => Promise<void>} loadFile
 * @param {(text: string) => void} tell
 */
function setupDropTarget(doc, loadFile, tell) {
  const target = doc.getElementById("drop-target");
  if (!(target instanceof HTMLElement)) return;
  const hide = () => {
    target.hidden = true;
  };
  doc.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    target.hidden = false;
  });
  // Once shown the target covers the page, so the drag's later events are its own.
  doc.addEventListener("dragover", (event) => {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
  });
  target.addEventListener("dragleave", (event) => {
    if (!(event.relatedTarget instanceof Node && target.contains(event.relatedTarget))) hide();
  });
  doc.addEventListener("drop", (event) => {
    if (!carriesFiles(event.dataTransfer)) return;
    // Never the browser's own handling (it would open the file in place of the page).
    event.preventDefault();
    hide();
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length !== 1) {
      tell(t("Drop one RDB file at a time ({n} were dropped). Nothing changed.", { n: files.length }));
      return;
    }
    loadFile(files[0]);
  });
  doc.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !target.hidden) hide();
  });
}
