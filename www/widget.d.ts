// Types for www/widget.js: the <redis-playground> element (hand-written; the engine's types are
// wasm-bindgen's pkg/redisplay.d.ts).

/** The parts a widget (or the page) can show. */
export type PlaygroundView = "console" | "clock" | "keyspace" | "zset" | "expiry" | "eviction" | "delay-queue";

export declare const WIDGET_VIEWS: readonly PlaygroundView[];
export declare const DEFAULT_SEED: number;
/** 2025-01-01T00:00:00Z, in Unix ms. */
export declare const DEFAULT_START_MS: number;
/** Commands one widget takes; the rest are reported, not run. */
export declare const MAX_COMMANDS: number;

/** One console line's result, as engine.js returns it. */
export interface LineResult {
  /** Exactly what redis-cli prints. */
  text: string;
  prompt: string;
  reply: { type: string; value?: unknown } | null;
  quit: boolean;
  clear: boolean;
  /** SHUTDOWN ended the server; `connect` starts it again. */
  shutdown?: boolean;
  blocked?: boolean;
  subscribed?: boolean;
}

/** The engine behind a widget (www/engine.js); plain JS objects cross the wasm boundary. */
export interface PlaygroundEngine {
  readonly seed: number;
  readonly startMs: number;
  execute(line: string): LineResult;
  command(args: string[]): { text: string; reply: { type: string; value?: unknown } | null };
  advanceTo(nowMs: number, maxTicks?: number): { ticks: number; lagMs: number; now: number };
  now(): number;
  reset(): void;
  info(sections: string): Record<string, string>;
  /** True while the engine is being recreated after an internal error, or after free(). */
  isRecovering(): boolean;
  free(): void;
}

/** What mountPlayground() (www/playground.js) returns, and a started widget's `playground`. */
export interface PlaygroundParts {
  engine: PlaygroundEngine;
  store: {
    get(): Readonly<{ paused: boolean; speed: number; seed: number; startMs: number; panelView: string; selectedDb: number; selectedKey: string | null }>;
    set(patch: Partial<{ paused: boolean; speed: number; panelView: string; selectedDb: number; selectedKey: string | null }>): boolean;
    subscribe(listener: (state: unknown) => void): () => void;
  };
  loop: { wake(): void; advanceBy(ms: number): void; stop(): void };
  consoles: unknown;
  /** The views, by name; those made on demand (expiry, eviction, persistence, delayQueue) are null until their panel is first shown. */
  views: Record<string, unknown>;
  /** The panel views this playground has (their element is in its markup). */
  panels: readonly string[];
  /** Makes the named views now (their modules imported); resolves once they are made. */
  loadViews(names: readonly string[]): Promise<void>;
  /** The delay-queue lab's runner, once its view is made (null before). */
  readonly delayQueue: unknown;
  /** Runs a line on console `n` (default 0) as if typed there and sent with Enter. */
  run(line: string, n?: number): void;
  /** A fresh engine with the same seed and start time. */
  reset(): void;
  /** Stops the loop and frees the engine. */
  destroy(): void;
}

/** What the attributes say, once read (bad values replaced by the defaults). */
export interface WidgetConfig {
  seed: number;
  startMs: number;
  views: PlaygroundView[];
  commands: string[];
  autorun: boolean;
  readOnly: boolean;
  paused: boolean;
  /** A CSS length, or null for the widget's own height. */
  height: string | null;
  lab: string | null;
  label: string;
  seedGiven: boolean;
  startGiven: boolean;
  viewsGiven: boolean;
}

/**
 * `<redis-playground>`. Attributes: `commands` (lines separated by newlines or `;`), or the
 * text of a child `<pre>`; `views` (space-separated PlaygroundView names; default "console");
 * `seed`; `start` (ISO time or Unix ms); `autorun`; `read-only`; `paused`; `height` (a CSS
 * length, a bare number is px); `lab` (an id from www/labs/data/); `label`; `lang` ("en" or
 * "zh-CN"; default: the language chosen on the playground's page before, else the browser's —
 * one language per document: the first widget to show sets it for all, a later `lang` does not
 * change it; commands, replies and key names are never translated).
 *
 * Theming: --rp-bg, --rp-fg, --rp-accent, --rp-font, --rp-font-sans, --rp-panel, --rp-border,
 * --rp-muted, --rp-prompt, --rp-console-bg, --rp-radius, --rp-color-scheme.
 */
export declare class RedisPlaygroundElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** Resolves with the playground once started, or null if it could not start. */
  readonly ready: Promise<PlaygroundParts | null>;
  /** The running playground, or null (not started yet, failed, or removed from the page). */
  readonly playground: PlaygroundParts | null;
  /** Starts now instead of when scrolled into view. */
  start(): Promise<PlaygroundParts | null>;
  /** "waiting" (until scrolled into view), "starting", "ready", "failed" or "idle". */
  readonly dataset: DOMStringMap & { state?: "idle" | "waiting" | "starting" | "ready" | "failed" };
}

/** Splits commands at newlines and, when `semicolons`, at `;` outside quotes. */
export declare function splitCommands(text: string, options?: { semicolons?: boolean }): string[];
export declare function parseViews(text: string): { views: PlaygroundView[]; unknown: string[] };
/** A CSS length for `height`, or null. */
export declare function parseHeight(text: string): string | null;
/** Reads a widget's attributes; `pre` is the text of a child <pre> (or null). Never throws. */
export declare function readWidgetConfig(attr: (name: string) => string | null, pre: string | null): { config: WidgetConfig; problems: string[] };

export interface RedisPlaygroundErrorEvent extends CustomEvent<{ message: string }> {}

declare global {
  interface HTMLElementTagNameMap {
    "redis-playground": RedisPlaygroundElement;
  }
  interface HTMLElementEventMap {
    "playground-ready": Event;
    "playground-error": RedisPlaygroundErrorEvent;
  }
}
