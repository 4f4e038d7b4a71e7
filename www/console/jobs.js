// @ts-check
// Work too big for one frame, run in slices: a paste of a thousand lines, a `?commands=` link, a
// shared session's replay. Each slice runs units of a job (a line, a recorded call) until
// `budgetMs` of real time is spent, then gives the frame back; the next slice runs on the next
// animation frame. So the page keeps drawing and answering keys while a job runs, and the
// loop's own frame (cron, events, views) goes on between slices. Pure: no DOM (the scheduling
// and the clock are given), unit-tested under node.
//
// A job says after each call whether it ran a unit and there is more ("more"), whether it is
// over ("done"), whether it worked without finishing a unit ("busy": a replay's clock catching up
// to the next recorded call a bounded number of ticks at a time; later, a long script the engine
// runs in slices of its own — the slice goes on while its budget lasts), or whether it cannot go
// on yet ("wait": its console waits for a blocked command's reply, or reads messages) — then the
// runner looks again next frame, without spinning. Jobs run one after another in the
// order they were added, so a line typed while a paste runs waits its turn, as a terminal
// buffers what is typed while redis-cli is busy. `cancel()` stops the current job and the ones
// waiting behind it (Ctrl-C).

/** Real ms one slice may spend (a unit is never split: one slow line can exceed it). */
export const SLICE_BUDGET_MS = 8;

/**
 * @typedef {"more" | "done" | "busy" | "wait"} StepResult
 *
 * @typedef {object} Job
 * @property {string} label         what is running, for the progress line ("pasted lines")
 * @property {number} total         units in all (for the progress)
 * @property {() => StepResult} step  runs one unit (or part of one: "busy")
 * @property {number} [console]     the console it types into (Ctrl-C there stops it)
 * @property {boolean} [cancellable]  false: Ctrl-C does not stop it (a replay must finish)
 * @property {(done: number) => void} [onCancel]  told how many units ran before it was stopped
 *
 * @typedef {object} JobProgress  what the progress line shows
 * @property {string} label
 * @property {number} done
 * @property {number} total
 * @property {number} queued   jobs waiting behind it
 * @property {boolean} waiting  the job waits (a blocked command)
 * @property {number | undefined} console
 * @property {boolean} cancellable
 */

/**
 * @param {object} [options]
 * @param {(cb: () => void) => void} [options.requestFrame]  runs `cb` on the next frame
 * @param {() => number} [options.now]  real time, ms
 * @param {number} [options.budgetMs]
 * @param {(progress: JobProgress | null) => void} [options.onProgress]  after each slice; null when idle
 */
export function createJobRunner({
  requestFrame = (cb) => requestAnimationFrame(() => cb()),
  now = () => performance.now(),
  budgetMs = SLICE_BUDGET_MS,
  onProgress = () => {},
} = {}) {
  /** @type {Array<{job: Job, done: number, resolve: (r: "done" | "cancelled") => void}>} */
  const queue = [];
  let scheduled = false;
  let waiting = false;

  function schedule() {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    requestFrame(slice);
  }

  /** @returns {JobProgress | null} */
  function progress() {
    const head = queue[0];
    if (!head) return null;
    return {
      label: head.job.label,
      done: head.done,
      total: head.job.total,
      queued: queue.length - 1,
      waiting,
      console: head.job.console,
      cancellable: head.job.cancellable !== false,
    };
  }

  function slice() {
    scheduled = false;
    const deadline = now() + budgetMs;
    waiting = false;
    while (queue.length > 0) {
      const head = queue[0];
      let result;
      try {
        result = head.job.step();
      } catch (err) {
        // A job that throws is over; the error is not the page's end.
        queue.shift();
        head.resolve("cancelled");
        console.error("redisplay: a console job failed", err);
        continue;
      }
      if (result === "wait") {
        waiting = true;
        break;
      }
      if (result !== "busy") head.done += 1;
      if (result === "done") {
        queue.shift();
        head.resolve("done");
      }
      if (now() >= deadline) break;
    }
    onProgress(progress());
    schedule();
  }

  return {
    /**
     * Queues a job; resolves with "done" once it ran to the end, "cancelled" if it was stopped.
     * @param {Job} job
     * @returns {Promise<"done" | "cancelled">}
     */
    add(job) {
      return new Promise((resolve) => {
        if (job.total <= 0) {
          resolve("done");
          return;
        }
        queue.push({ job, done: 0, resolve });
        onProgress(progress());
        schedule();
      });
    },

    /** Something is running or waiting to run. */
    busy: () => queue.length > 0,

    /** What runs now, or null. */
    progress,

    /**
     * Whether a line typed in console `n` now must wait: a job of that console, or of every
     * console (a replay), is running or queued.
     * @param {number} n
     */
    pendingFor: (n) => queue.some(({ job }) => job.console === n || job.console === undefined),

    /**
     * Whether Ctrl-C in console `n` has something to stop.
     * @param {number} n
     */
    cancellableFor: (n) => queue.some(({ job }) => job.console === n && job.cancellable !== false),

    /**
     * Ctrl-C in console `n`: stops the jobs typing into it, the running one and those queued
     * (a job that cannot be stopped — a replay — runs on). Without `n`, every job that can be
     * stopped. Returns how many were stopped.
     * @param {number} [n]
     */
    cancel(n) {
      let stopped = 0;
      for (let i = queue.length - 1; i >= 0; i -= 1) {
        const item = queue[i];
        if (item.job.cancellable === false || (n !== undefined && item.job.console !== n)) continue;
        queue.splice(i, 1);
        item.job.onCancel?.(item.done);
        item.resolve("cancelled");
        stopped += 1;
      }
      onProgress(progress());
      return stopped;
    },
  };
}

/** @typedef {ReturnType<typeof createJobRunner>} JobRunner */
