// @ts-check
// The page's entry: read the URL, mount the playground (playground.js) in the document, show
// what went wrong in words.
//
// Whatever goes wrong while booting ends as a readable message in the page (#boot-status),
// never a blank page. `<html data-boot="ready|failed">` says how it ended (the e2e tests wait
// for it).
//
// The lab player (labs/lab-player.js) is imported when a lab is asked for (`?lab=`, the Labs
// menu); the views other than the first screen's when their panel is first shown
// (playground.js).

/** The lab player's module, imported when first needed. */
const labPlayerModule = () => import("./labs/lab-player.js");

import { el } from "./dom.js";
import { EngineLoadError, onEngineDownload } from "./engine.js";
import { describeError, number } from "./format.js";
import { browserLanguages, chooseLanguage, language, rememberLanguage, resolveLanguage, setLanguage, storedLanguage, t, translateMarkup } from "./i18n.js";
import { parseBootParams } from "./params.js";
import { isPanelView } from "./store.js";
import { createNotices } from "./notices.js";
import { formatClock } from "./views/clock-view.js";
import { mountPlayground } from "./playground.js";
import { replayedText } from "./rdb-file.js";
import { recordSession, encodeSession, decodeSession, decodeCommands, replayJob, sessionProblem, MAX_URL_SESSION } from "./session.js";
import { confirmDiscard } from "./confirm.js";
import { setupRdbActions } from "./rdb-actions.js";
import { stashSession, takeStashedSession } from "./session-stash.js";

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

// ---------------------------------------------------------------------------------------------
// Work is never lost silently: the session (every recorded call) is kept in this tab's history
// entry (history.state), so a reload replays it and Back after opening a lab brings it back;
// opening a lab or Reset asks first when there is work.
// ---------------------------------------------------------------------------------------------

/** The session kept in this history entry, if any (checked like a shared one). */
function savedSession() {
  try {
    const kept = history.state?.redisplay?.session;
    return kept && sessionProblem(kept) === null ? /** @type {import("./session").Session} */ (kept) : null;
  } catch {
    return null;
  }
}

/**
 * Keeps `recorder`'s session in this history entry (now, then whenever it changes, and when the
 * page goes away). Returns `save()` — whether the session is kept — and `forget()`.
 * @param {ReturnType<typeof recordSession>} recorder
 */
function keepInHistory(recorder) {
  let savedSize = -1;
  let savedEnd = Number.NaN;
  let forgotten = false;
  let kept = true;
  function save() {
    if (forgotten) return false;
    const session = recorder.snapshot();
    if (session.log.length === savedSize && session.endMs === savedEnd) return kept;
    try {
      // Nothing recorded yet: nothing to keep (the URL alone makes the same page).
      const redisplay = session.log.length === 0 ? undefined : { session };
      history.replaceState({ ...(history.state ?? {}), redisplay }, "");
      savedSize = session.log.length;
      savedEnd = session.endMs;
      kept = true;
    } catch {
      // Too big for the history entry: the Share menu's file export still has it.
      kept = false;
    }
    return kept;
  }
  const timer = setInterval(save, 1000);
  window.addEventListener("pagehide", save);
  document.addEventListener("visibilitychange", () => document.hidden && save());
  return {
    save,
    forget() {
      forgotten = true;
      clearInterval(timer);
      try {
        history.replaceState({ ...(history.state ?? {}), redisplay: undefined }, "");
      } catch {
        // nothing kept
      }
    },
  };
}

/**
 * Whether the session holds work a person would miss: anything recorded since the last reset.
 * @param {ReturnType<typeof recordSession> | null} recorder
 */
function hasWork(recorder) {
  const log = recorder?.snapshot().log ?? [];
  return log.length > 0 && log[log.length - 1][1] !== "reset";
}

/**
 * What the URL asks to play: a lab, a shared session, a list of commands (each optional).
 * @param {string} search
 * @param {ReturnType<typeof createNotices>} notices
 */
async function readPlayRequests(search, notices) {
  const q = new URLSearchParams(search);
  /** @type {{lab: import("./labs/lab-player").Lab | null, labId: string | null, session: import("./session").Session | null, commands: string[] | null, restored: boolean}} */
  const out = { lab: null, labId: null, session: null, commands: null, restored: false };
  if (q.has("lab")) {
    const r = await (await labPlayerModule()).loadLab(q.get("lab"));
    if (r.ok) {
      out.lab = r.lab;
      out.labId = q.get("lab");
      if (r.translationProblem) notices.show(t("This lab is shown in English: {why}.", { why: r.translationProblem }), "info");
    } else {
      notices.show(t("{error} The playground starts without a lab.", { error: r.error }), "warning");
    }
  }
  if (q.has("session")) {
    const r = await decodeSession(q.get("session"));
    if (r.ok) out.session = r.session;
    else notices.show(t("The shared session in this link could not be opened: {error}. The playground starts fresh.", { error: r.error }), "warning");
  }
  if (q.has("import") && !history.state?.redisplay) {
    // A session file too long for a link, imported in another page (setupShare): once.
    const stashed = await takeStashedSession(String(q.get("import")));
    const problem = stashed === null ? t("it was opened already (an import is handed over once)") : sessionProblem(stashed);
    if (problem === null) out.session = /** @type {import("./session").Session} */ (stashed);
    else notices.show(t("The imported session could not be opened: {problem}. Import the file again from the Share menu.", { problem }), "warning");
  }
  if (q.has("commands")) {
    const r = decodeCommands(q.get("commands"));
    if (r.ok) out.commands = r.lines;
    else notices.show(t("The commands in this link could not be read: {error}.", { error: r.error }), "warning");
  }
  // This tab's own work, kept in its history entry (a reload, or Back after opening a lab): it
  // is newer than anything in the URL.
  const kept = savedSession();
  if (kept) {
    out.session = kept;
    out.restored = true;
  } else if (out.session && out.lab) {
    notices.show(t("This link has both a session and a lab: the session is replayed, the lab's steps are shown beside it."), "info");
  }
  return out;
}

/**
 * The top bar's menus (<details>): Escape closes the open one and gives the focus back to its
 * button; opening one closes the other; a click outside closes it.
 */
function setupMenus() {
  const menus = /** @type {HTMLDetailsElement[]} */ ([...document.querySelectorAll(".topbar-menus details")]);
  for (const menu of menus) {
    menu.addEventListener("toggle", () => {
      if (menu.open) for (const other of menus) if (other !== menu) other.open = false;
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const open = menus.find((m) => m.open);
    if (!open) return;
    event.preventDefault();
    open.open = false;
    open.querySelector("summary")?.focus();
  });
  document.addEventListener("click", (event) => {
    for (const menu of menus) if (menu.open && event.target instanceof Node && !menu.contains(event.target)) menu.open = false;
  });
}

/**
 * The theme toggle ("Light theme", pressed or not): light or dark, remembered (localStorage);
 * until it is used the page follows the system's prefers-color-scheme.
 */
function setupThemeToggle() {
  const button = document.getElementById("theme-toggle");
  if (!(button instanceof HTMLButtonElement)) return;
  const root = document.documentElement;
  const system = window.matchMedia?.("(prefers-color-scheme: light)");
  const current = () => root.dataset.theme ?? (system?.matches ? "light" : "dark");
  const show = () => {
    const theme = current();
    button.setAttribute("aria-pressed", String(theme === "light"));
  };
  button.addEventListener("click", () => {
    const next = current() === "light" ? "dark" : "light";
    root.dataset.theme = next;
    try {
      localStorage.setItem("redisplay-theme", next);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
    show();
  });
  system?.addEventListener?.("change", show);
  show();
}

/**
 * The top bar's lab list, filled the first time it is opened. With work in the session, a
 * lab is opened only once the person agrees (the session stays one Back away).
 * @param {() => {recorder: ReturnType<typeof recordSession> | null, keeper: ReturnType<typeof keepInHistory> | null}} current
 */
function setupLabPicker(current) {
  const picker = document.querySelector(".lab-picker");
  const list = picker?.querySelector("ul");
  if (!(picker instanceof HTMLDetailsElement) || !list) return;
  let filled = false;
  picker.addEventListener("toggle", async () => {
    if (!picker.open || filled) return;
    filled = true;
    const labs = await (await labPlayerModule()).loadLabIndex();
    list.replaceChildren(
      ...labs.flatMap(({ id, title, summary, track }, i) => {
        const li = el("li");
        const a = el("a");
        a.href = permalinkLab(id);
        a.append(el("strong", null, title), el("small", null, summary));
        a.addEventListener("click", async (event) => {
          const { recorder, keeper } = current();
          if (!hasWork(recorder) || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          const steps = recorder?.size() ?? 0;
          const go = await confirmDiscard({
            title: t("Open the lab “{title}”?", { title }),
            text:
              steps === 1
                ? t("The lab starts on a fresh engine. This session (1 recorded step) stays in this tab's history: Back brings it back.")
                : t("The lab starts on a fresh engine. This session ({n} recorded steps) stays in this tab's history: Back brings it back.", { n: number(steps) }),
            confirm: t("Open the lab"),
            cancel: t("Stay here"),
          });
          if (!go) return;
          keeper?.save();
          window.location.assign(a.href);
        });
        li.append(a);
        // A track's labs under its heading (data/index.json `tracks`).
        return track && track.id !== labs[i - 1]?.track?.id ? [el("li", "lab-track", track.title), li] : [li];
      }),
    );
    if (labs.length === 0) list.append(el("li", null, t("No labs could be loaded.")));
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
      say(t("This session is longer than {n} recorded steps: export it to a file instead.", { n: number(recorder.size()) }));
    } else if (text.length > MAX_URL_SESSION) {
      field.value = "";
      say(t("This session is too long for a link ({n} characters): export it to a file instead.", { n: number(text.length) }));
    } else {
      field.value = url;
      say(
        session.log.length === 1
          ? t("1 recorded step; the link reopens it on the same seed and stops the clock where it is now.")
          : t("{n} recorded steps; the link reopens them on the same seed and stops the clock where it is now.", { n: number(session.log.length) }),
      );
    }
  });
  document.getElementById("share-copy")?.addEventListener("click", async () => {
    if (field.value === "") return;
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      say(t("Link copied."));
    } catch {
      say(t("Select the link above and copy it (the browser did not allow copying from here)."));
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
    say(t("Exported {n} recorded steps.", { n: number(session.log.length) }));
  });
  byId("share-import", HTMLInputElement)?.addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files?.[0];
    if (!file) return;
    if (file.size > 8_000_000) {
      say(t("That file is too large to be a redisplay session."));
      return;
    }
    const r = await decodeSession(await file.text());
    if (!r.ok) {
      say(t("That file could not be opened as a session: {error}.", { error: r.error }));
      return;
    }
    // A session brings its own seed and clock: open it as a page of its own.
    const text = await encodeSession(r.session);
    const url = new URL(window.location.href);
    if (text.length <= MAX_URL_SESSION) {
      url.search = new URLSearchParams({ session: text }).toString();
      window.location.assign(url.href);
      return;
    }
    // Too long for an address (an RDB file in it): handed over through IndexedDB.
    try {
      url.search = new URLSearchParams({ import: await stashSession(r.session) }).toString();
    } catch (err) {
      say(t("That session is too long for a link, and this browser would not keep it for the page that opens it ({error}).", { error: describeError(err) }));
      return;
    }
    window.location.assign(url.href);
  });
}

/**
 * The loading bar: how much of the engine's file has arrived, in bytes (the status line says
 * it in words every tenth, not on every chunk, for screen readers).
 */
function showDownloadProgress() {
  const status = document.getElementById("boot-status");
  const bar = document.getElementById("boot-progress");
  if (!status || !(bar instanceof HTMLProgressElement)) return () => {};
  const kb = (/** @type {number} */ n) => `${number(Math.round(n / 1024))} KB`;
  let said = -1;
  return onEngineDownload(({ loaded, total, done }) => {
    if (total) {
      bar.max = total;
      bar.value = Math.min(loaded, total);
    }
    const tenth = total ? Math.floor((10 * loaded) / total) : Math.floor(loaded / 262_144);
    if (tenth === said && !done) return;
    said = tenth;
    status.textContent = done
      ? t("Starting the engine…")
      : total
        ? t("Loading the engine… {loaded} of {total}", { loaded: kb(loaded), total: kb(total) })
        : t("Loading the engine… {loaded}", { loaded: kb(loaded) });
  });
}

/**
 * The page's language (www/i18n.js): `?lang=` (remembered when it is one of ours), else the one
 * chosen before, else the browser's. Its table is loaded before anything is built.
 */
async function bootLanguage() {
  const requested = new URLSearchParams(window.location.search).get("lang");
  const lang = chooseLanguage({ requested, stored: storedLanguage(), preferred: browserLanguages() });
  if (resolveLanguage(requested)) rememberLanguage(lang);
  await setLanguage(lang);
  translateMarkup(document);
  document.title = t("redisplay — a Redis 7.0 playground in your browser");
  document.querySelector('meta[name="description"]')?.setAttribute("content", t("A Redis 7.0 playground that runs entirely in the browser, with a virtual clock you control."));
}

/**
 * The top bar's language switch: the choice is remembered and the page opens again in it, with
 * the work of this tab. The session (every recorded line and control, at its virtual time) is
 * kept in this history entry as for any reload (keepInHistory), and the reload replays it; when
 * the entry cannot hold it (a large RDB file in it), it is handed over through IndexedDB
 * (session-stash.js, the `?import=` path). `?lab=` and the view (`#…`) stay in the address.
 * @param {() => {recorder: ReturnType<typeof recordSession> | null, keeper: ReturnType<typeof keepInHistory> | null}} current
 */
function setupLanguageSwitch(current) {
  const select = byId("lang-switch", HTMLSelectElement);
  if (!select) return;
  select.value = language();
  // On narrower screens the names are short ("EN", "中文"): the top bar's menus share their row
  // with the clock (a phone: with the brand).
  const narrow = window.matchMedia?.("(max-width: 1099px)");
  const SHORT = /** @type {Record<string, string>} */ ({ en: "EN", "zh-CN": "中文" });
  const label = () => {
    for (const option of select.options) option.label = narrow?.matches ? (SHORT[option.value] ?? option.text) : option.text;
  };
  narrow?.addEventListener?.("change", label);
  label();
  select.addEventListener("change", async () => {
    const lang = resolveLanguage(select.value);
    if (!lang || lang === language()) return;
    select.disabled = true;
    rememberLanguage(lang);
    const url = new URL(window.location.href);
    // The address says the language too: it wins over the remembered one (which storage may refuse).
    url.searchParams.set("lang", lang);
    url.searchParams.delete("import");
    const { recorder, keeper } = current();
    if (!recorder || !hasWork(recorder) || keeper?.save()) {
      // A reload keeps this history entry's state, the session in it.
      history.replaceState(history.state, "", url.href);
      window.location.reload();
      return;
    }
    // Too large for the history entry: handed to the next page once, as an imported file is.
    try {
      url.searchParams.delete("session");
      url.searchParams.delete("commands");
      url.searchParams.set("import", await stashSession(recorder.snapshot()));
    } catch (err) {
      console.error("redisplay: the session could not be kept for the switch", err);
      select.value = language();
      select.disabled = false;
      window.alert(t("This session is too large to carry over to the other language in this browser. Export it from the Share menu first, then switch."));
      return;
    }
    keeper?.forget();
    window.location.replace(url.href);
  });
}

async function boot() {
  await bootLanguage();
  // The work of this tab, for the language switch (usable while the engine loads).
  /** @type {{recorder: ReturnType<typeof recordSession> | null, keeper: ReturnType<typeof keepInHistory> | null}} */
  const work = { recorder: null, keeper: null };
  setupLanguageSwitch(() => work);
  const stopProgress = showDownloadProgress();
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
        t("redisplay — lab “{title}”. Seed {seed}, clock stopped at {clock}: time passes only when a step says so (CLOCK ADVANCE) or you play the clock.", {
          title: lab.title,
          seed,
          clock: formatClock(startMs),
        }),
        t("Run each step with its “Run this step” button, or type the commands yourself (Tab completes, ↑/↓ recall)."),
        t("This lab again: {link}", { link }),
      ]
    : [
        t("redisplay — a Redis 7.0 engine running in this page. Seed {seed}, clock starting {clock}.", { seed, clock: formatClock(startMs) }),
        t("Type redis-cli commands (Tab completes, ↑/↓ recall). Time is virtual: pause, step or jump it above; CLOCK GET|SET|ADVANCE does it from here."),
        t("“+ Another client” opens another redis-cli on the same engine (up to three): race WATCH, BLPOP or SUBSCRIBE against it."),
        t("New here? The Labs menu (top right) has guided labs: a leaderboard, expiry, the eight eviction policies, a distributed lock, a delay queue, big keys — and the source articles, claim by claim…"),
        t("The Share menu also downloads this server's dump.rdb (a real redis-server 7.0 loads it) and loads one: pick a file there, or drop it on the page."),
        t("Same run again: {link}", { link }),
      ];
  /** @type {ReturnType<typeof recordSession> | null} */
  let recorder = null;
  /** @type {Awaited<ReturnType<typeof mountPlayground>> | undefined} */
  let parts;
  let savedHintShown = false;
  try {
    parts = await mountPlayground(document, {
      seed,
      startMs,
      panelView,
      // A lab's views are made before it starts: its steps bring them forward.
      preload: lab ? lab.steps.map((s) => s.view).filter((v) => typeof v === "string") : [],
      paused: Boolean(lab || session),
      notify: (text, kind) => notices.show(text, kind),
      welcome,
      // The first SAVE or BGSAVE in the first console: where that file can be had.
      onRun(result, line, n) {
        if (savedHintShown || n !== 0 || result.reply?.type !== "status" || !/^\s*(bg)?save\s*$/i.test(line)) return;
        savedHintShown = true;
        parts?.consoles.primary.printNote(
          t("(redisplay) the server keeps its RDB file in this page's memory: Share → Download dump.rdb gives you the dataset as it is now, for a real redis-server."),
        );
      },
      // Reset with work in the session asks first.
      async confirmReset() {
        if (!hasWork(recorder)) return true;
        return confirmDiscard({
          title: t("Reset the engine?"),
          text: t("Every key, setting and client goes, and the clock goes back to the start ({n} recorded steps). Export the session from the Share menu first to keep it.", {
            n: number(recorder?.size() ?? 0),
          }),
          confirm: t("Reset the engine"),
          cancel: t("Keep working"),
        });
      },
    });
  } catch (err) {
    stopProgress();
    document.getElementById("boot-progress")?.remove();
    console.error("redisplay: the engine could not be loaded", err);
    const message =
      err instanceof EngineLoadError
        ? t("The playground could not start. {why}", { why: err.message })
        : t("The playground could not start: {error}.", { error: describeError(err) });
    showBootFailure(message);
    return;
  }

  stopProgress();
  // Everything that changes the engine from here on is recorded, so it can be shared.
  recorder = recordSession(parts.engine, { seed, startMs });
  if (session) {
    // In slices with its progress in the console (console/jobs.js): a long session never
    // freezes the tab; lines typed meanwhile wait for it.
    const host = {
      line(n, text) {
        if (parts.consoles.ensure(n)) parts.consoles.submitOn(n, text);
      },
      open: (server) => parts.consoles.open(server),
      close: () => parts.consoles.close(),
      interrupt(n) {
        parts.engine.interrupt(n);
        parts.consoles.pollAll();
      },
      reset: () => parts.reset(),
      loadRdb(bytes) {
        parts.consoles.primary.printNote(replayedText(parts.loadRdb(bytes)));
      },
    };
    await parts.consoles.runJob({ ...replayJob(parts.engine, session, host), label: t("recorded steps replayed"), cancellable: false });
    parts.consoles.pollAll();
    parts.loop.redrawAll?.();
    parts.loop.wake?.();
    parts.consoles.primary.printNote(
      play.restored
        ? t("(redisplay) your session is back: {n} recorded steps replayed on seed {seed}; the clock is stopped at {clock}, where it was.", {
            n: session.log.length,
            seed,
            clock: formatClock(parts.engine.now()),
          })
        : t("(redisplay) a shared session: {n} recorded steps replayed on seed {seed}; the clock is stopped at {clock}, where it was shared.", {
            n: session.log.length,
            seed,
            clock: formatClock(parts.engine.now()),
          }),
    );
  }
  const keeper = keepInHistory(recorder);
  Object.assign(work, { recorder, keeper });
  if (play.restored && session) {
    const item = notices.show(t("Your session in this tab is back ({n} recorded steps replayed, clock paused).", { n: number(session.log.length) }), "info");
    const fresh = el("button", "notice-action", t("Start fresh"));
    fresh.type = "button";
    fresh.addEventListener("click", () => {
      keeper.forget();
      window.location.reload();
    });
    item.querySelector(".notice-close")?.before(fresh);
  }
  // The link's commands, in slices with their progress (Ctrl-C stops them).
  if (play.commands) await parts.consoles.runLines(0, play.commands, t("lines from the link"));
  /** @type {ReturnType<typeof import("./labs/lab-player.js").attachLab> | null} */
  let labPlayer = null;
  const labEl = document.getElementById("lab");
  if (lab && labEl) {
    const { attachLab } = await labPlayerModule();
    labEl.hidden = false;
    labEl.closest(".workspace")?.classList.add("with-lab");
    labPlayer = attachLab(labEl, lab, parts);
  }
  setupMenus();
  setupThemeToggle();
  setupLabPicker(() => ({ recorder, keeper }));
  setupShare(recorder, play.labId, parts.store);
  setupRdbActions(document, {
    rdbImage: () => parts.rdbImage(),
    loadRdb: (bytes) => parts.loadRdb(bytes),
    info: (sections) => parts.engine.info(sections),
    note: (text) => parts.consoles.primary.printNote(text),
    notify: (text, kind) => notices.show(text, kind),
    // The loaded file is in the session now: kept in this tab's history entry, so a reload
    // replays it — unless the entry cannot hold it, which is then said.
    loaded() {
      if (keeper.save()) return;
      notices.show(
        t(
          "This tab could not keep the loaded file for a reload (it is too large for the browser's history entry): a reload would lose it. Export the session (Share → Export to a file) or download dump.rdb to keep it.",
        ),
        "warning",
      );
    },
  });

  parts.consoles.primary.focus();
  Object.assign(pageParts, {
    engine: parts.engine,
    store: parts.store,
    loop: parts.loop,
    workload: parts.workload,
    consoles: parts.consoles,
    views: parts.views,
    destroy: parts.destroy,
    lab: labPlayer,
    session: recorder,
  });
  // The delay-queue lab's runner exists once its view is made (playground.js).
  const mounted = parts;
  Object.defineProperty(pageParts, "delayQueue", { get: () => mounted.delayQueue, enumerable: true, configurable: true });
  document.documentElement.dataset.boot = "ready";
}

boot().catch((err) => {
  console.error("redisplay: boot failed", err);
  showBootFailure(t("The playground could not start: {error}.", { error: describeError(err) }));
});
