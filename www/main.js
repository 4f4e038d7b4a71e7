// @ts-check
// The page's entry: read the URL, mount the playground (playground.js) in the document, show
// what went wrong in words.
//
// Whatever goes wrong while booting ends as a readable message in the page (#boot-status),
// never a blank page. `<html data-boot="ready|failed">` says how it ended (the e2e tests wait
// for it).

import { el } from "./dom.js";
import { EngineLoadError } from "./engine.js";
import { describeError, number } from "./format.js";
import { parseBootParams } from "./params.js";
import { isPanelView } from "./store.js";
import { createNotices } from "./notices.js";
import { formatClock } from "./views/clock-view.js";
import { mountPlayground } from "./playground.js";
import { loadLab, loadLabIndex, attachLab } from "./labs/lab-player.js";
import { recordSession, encodeSession, decodeSession, decodeCommands, replayJob, MAX_URL_SESSION } from "./session.js";

/**
 * The booted page's parts — `{engine, store, loop}` once boot succeeded — for the e2e tests
 * (which load big data sets through the page's own engine) and the devtools console.
 */
/** @type {Partial<import("./playground").PlaygroundParts> & {lab?: unknown, session?: unknown}} */
export const pageParts = {};

function randomSeed() {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/**
 * An element the page's markup has (index.html), of the class it must be.
 * @template {typeof HTMLElement} C
 * @param {string} id
 * @param {C} type
 * @returns {InstanceType<C> | null}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  return node instanceof type ? /** @type {InstanceType<C>} */ (node) : null;
}

/** @param {string} message */
function showBootFailure(message) {
  const status = document.getElementById("boot-status");
  if (status) {
    status.hidden = false;
    status.classList.add("boot-error");
    status.textContent = message;
  }
  document.documentElement.dataset.boot = "failed";
}

/** @param {string} id */
function permalinkLab(id) {
  const url = new URL(window.location.href);
  url.search = new URLSearchParams({ lab: id }).toString();
  url.hash = "";
  return url.href;
}

/**
 * @param {number} seed
 * @param {number} startMs
 */
function permalink(seed, startMs) {
  const url = new URL(window.location.href);
  url.search = new URLSearchParams({ seed: String(seed), t: String(startMs) }).toString();
  url.hash = "";
  return url.href;
}

/**
 * What the URL asks to play: a lab, a shared session, a list of commands (each optional).
 * @param {string} search
 * @param {ReturnType<typeof createNotices>} notices
 */
async function readPlayRequests(search, notices) {
  const q = new URLSearchParams(search);
  /** @type {{lab: import("./labs/lab-player").Lab | null, labId: string | null, session: import("./session").Session | null, commands: string[] | null}} */
  const out = { lab: null, labId: null, session: null, commands: null };
  if (q.has("lab")) {
    const r = await loadLab(q.get("lab"));
    if (r.ok) {
      out.lab = r.lab;
      out.labId = q.get("lab");
    } else {
      notices.show(`${r.error} The playground starts without a lab.`, "warning");
    }
  }
  if (q.has("session")) {
    const r = await decodeSession(q.get("session"));
    if (r.ok) out.session = r.session;
    else notices.show(`The shared session in this link could not be opened: ${r.error}. The playground starts fresh.`, "warning");
  }
  if (q.has("commands")) {
    const r = decodeCommands(q.get("commands"));
    if (r.ok) out.commands = r.lines;
    else notices.show(`The commands in this link could not be read: ${r.error}.`, "warning");
  }
  if (out.session && out.lab) {
    notices.show("This link has both a session and a lab: the session is replayed, the lab's steps are shown beside it.", "info");
  }
  return out;
}

/** The top bar's lab list, filled the first time it is opened. */
function setupLabPicker() {
  const picker = document.querySelector(".lab-picker");
  const list = picker?.querySelector("ul");
  if (!(picker instanceof HTMLDetailsElement) || !list) return;
  let filled = false;
  picker.addEventListener("toggle", async () => {
    if (!picker.open || filled) return;
    filled = true;
    const labs = await loadLabIndex();
    list.replaceChildren(
      ...labs.map(({ id, title, summary }) => {
        const li = el("li");
        const a = el("a");
        a.href = permalinkLab(id);
        a.append(el("strong", null, title), el("small", null, summary));
        li.append(a);
        return li;
      }),
    );
    if (labs.length === 0) list.append(el("li", null, "No labs could be loaded."));
  });
}

/**
 * The Share menu: a link to this session, a file export and import.
 * @param {ReturnType<typeof recordSession>} recorder
 * @param {string | null} labId
 * @param {import("./store").Store} store
 */
function setupShare(recorder, labId, store) {
  const menu = document.querySelector(".share-menu");
  const field = byId("share-url", HTMLInputElement);
  const status = document.getElementById("share-status");
  if (!(menu instanceof HTMLDetailsElement) || !field || !status) return;
  /** @param {string} text */
  const say = (text) => {
    status.textContent = text;
  };
  async function link() {
    const session = recorder.snapshot();
    const text = await encodeSession(session);
    const url = new URL(window.location.href);
    const q = new URLSearchParams({ session: text });
    if (labId) q.set("lab", labId);
    url.search = q.toString();
    // The view on show comes back with the link.
    const view = store.get().panelView;
    url.hash = view ? `#${view}` : window.location.hash;
    return { url: url.href, text, session };
  }
  menu.addEventListener("toggle", async () => {
    if (!menu.open) return;
    say("");
    const { url, text, session } = await link();
    if (recorder.overflow()) {
      field.value = "";
      say(`This session is longer than ${number(recorder.size())} recorded steps: export it to a file instead.`);
    } else if (text.length > MAX_URL_SESSION) {
      field.value = "";
      say(`This session is too long for a link (${number(text.length)} characters): export it to a file instead.`);
    } else {
      field.value = url;
      say(`${number(session.log.length)} recorded steps; the link reopens them on the same seed and stops the clock where it is now.`);
    }
  });
  document.getElementById("share-copy")?.addEventListener("click", async () => {
    if (field.value === "") return;
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      say("Link copied.");
    } catch {
      say("Select the link above and copy it (the browser did not allow copying from here).");
    }
  });
  document.getElementById("share-export")?.addEventListener("click", () => {
    const session = recorder.snapshot();
    const blob = new Blob([JSON.stringify(session)], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `redisplay-session-seed${session.seed}.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    say(`Exported ${number(session.log.length)} recorded steps.`);
  });
  byId("share-import", HTMLInputElement)?.addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files?.[0];
    if (!file) return;
    if (file.size > 8_000_000) {
      say("That file is too large to be a redisplay session.");
      return;
    }
    const r = await decodeSession(await file.text());
    if (!r.ok) {
      say(`That file could not be opened as a session: ${r.error}.`);
      return;
    }
    // A session brings its own seed and clock: open it as a page of its own.
    const text = await encodeSession(r.session);
    const url = new URL(window.location.href);
    url.search = new URLSearchParams({ session: text }).toString();
    window.location.assign(url.href);
  });
}

async function boot() {
  const params = parseBootParams(window.location.search, { nowMs: Date.now(), randomSeed });
  const notices = createNotices(/** @type {HTMLElement} index.html has it */ (document.getElementById("notices")));
  for (const problem of params.problems) notices.show(problem, "warning");
  const play = await readPlayRequests(window.location.search, notices);
  const { lab, session } = play;
  // A shared session or a lab brings its own seed and start time (and a paused clock).
  const seed = session?.seed ?? lab?.seed ?? params.seed;
  const startMs = session?.startMs ?? lab?.startMs ?? params.startMs;

  // `#expiry`, `#eviction` or `#delay-queue` in the URL opens that view in the right-hand panel;
  // else a lab's first view.
  const hashView = window.location.hash.slice(1);
  const labView = lab?.steps.find((s) => isPanelView(s.view))?.view;
  const panelView = isPanelView(hashView) ? hashView : (labView ?? "zset");
  const link = lab ? permalinkLab(play.labId ?? "") : permalink(seed, startMs);
  const welcome = lab
    ? [
        `redisplay — lab “${lab.title}”. Seed ${seed}, clock stopped at ${formatClock(startMs)}: time passes only when a step says so (CLOCK ADVANCE) or you play the clock.`,
        "Run each step from the panel on the left, or type the commands yourself (Tab completes, ↑/↓ recall).",
        `This lab again: ${link}`,
      ]
    : [
        `redisplay — a Redis 7.0 engine running in this page. Seed ${seed}, clock starting ${formatClock(startMs)}.`,
        "Type redis-cli commands (Tab completes, ↑/↓ recall). Time is virtual: pause, step or jump it above; CLOCK GET|SET|ADVANCE does it from here.",
        "“+ Another client” opens another redis-cli on the same engine (up to three): race WATCH, BLPOP or SUBSCRIBE against it.",
        `Same run again: ${link}`,
      ];
  let parts;
  try {
    parts = await mountPlayground(document, {
      seed,
      startMs,
      panelView,
      paused: Boolean(lab || session),
      notify: (text, kind) => notices.show(text, kind),
      welcome,
    });
  } catch (err) {
    console.error("redisplay: the engine could not be loaded", err);
    const message =
      err instanceof EngineLoadError
        ? `The playground could not start. ${err.message}`
        : `The playground could not start: ${describeError(err)}.`;
    showBootFailure(message);
    return;
  }

  // Everything that changes the engine from here on is recorded, so it can be shared.
  const recorder = recordSession(parts.engine, { seed, startMs });
  if (session) {
    // In slices with its progress in the console (console/jobs.js): a long session never
    // freezes the tab; lines typed meanwhile wait for it.
    const host = {
      line(n, text) {
        if (parts.consoles.ensure(n)) parts.consoles.submitOn(n, text);
      },
      open: () => parts.consoles.open(),
      close: () => parts.consoles.close(),
      interrupt(n) {
        parts.engine.interrupt(n);
        parts.consoles.pollAll();
      },
      reset: () => parts.reset(),
    };
    await parts.consoles.runJob({ ...replayJob(parts.engine, session, host), label: "recorded steps replayed", cancellable: false });
    parts.consoles.pollAll();
    parts.loop.redrawAll?.();
    parts.loop.wake?.();
    parts.consoles.primary.printNote(
      `(redisplay) a shared session: ${session.log.length} recorded steps replayed on seed ${seed}; the clock is stopped at ${formatClock(parts.engine.now())}, where it was shared.`,
    );
  }
  // The link's commands, in slices with their progress (Ctrl-C stops them).
  if (play.commands) await parts.consoles.runLines(0, play.commands, "lines from the link");
  /** @type {ReturnType<typeof attachLab> | null} */
  let labPlayer = null;
  const labEl = document.getElementById("lab");
  if (lab && labEl) {
    labEl.hidden = false;
    labEl.closest(".workspace")?.classList.add("with-lab");
    labPlayer = attachLab(labEl, lab, parts);
  }
  setupLabPicker();
  setupShare(recorder, play.labId, parts.store);

  parts.consoles.primary.focus();
  Object.assign(pageParts, {
    engine: parts.engine,
    store: parts.store,
    loop: parts.loop,
    workload: parts.workload,
    consoles: parts.consoles,
    views: parts.views,
    delayQueue: parts.delayQueue,
    destroy: parts.destroy,
    lab: labPlayer,
    session: recorder,
  });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(`The playground could not start: ${describeError(err)}.`);
});
