// @ts-check
// The tabs above the right-hand panel: which view it shows (the sorted-set view, the expiry
// view, the eviction view or the delay-queue lab). The choice lives in the store (`panelView`);
// this module only draws the tab bar, shows the chosen panel and hides the others, and follows
// the WAI-ARIA tabs pattern (arrow keys move between tabs). A hidden view keeps following the
// engine's events but draws nothing.
//
// A view whose modules are still coming (`ready(view)` gives a promise: playground.js makes
// some views when first shown) gets its tab selected at once, and its panel in place of the
// one shown once it is made — never an empty panel in between.

/**
 * @param {HTMLElement} tablist   an element with role="tablist" holding one button per view,
 *                                each with `data-view` and `aria-controls` naming its panel
 * @param {{get(): {panelView: string}, set(patch: object): boolean, subscribe(fn: (s: {panelView: string}) => void): () => void}} store
 * @param {{ready?: (view: string) => Promise<void> | null}} [options]  `ready`: null when the view can be shown now
 */
export function createViewTabs(tablist, store, { ready = () => null } = {}) {
  const tabs = /** @type {HTMLElement[]} */ ([...tablist.querySelectorAll("[role=tab][data-view]")]);
  // The panels live beside the tabs: in the document, or in a widget's shadow root.
  const scope = /** @type {Document | ShadowRoot} */ (tablist.getRootNode());
  /** @param {HTMLElement} tab */
  const panelOf = (tab) => scope.getElementById?.(tab.getAttribute("aria-controls") ?? "") ?? null;
  // Where the current view is written for styles and tests: <html>, or the widget's element.
  const holder = /** @type {HTMLElement} */ (scope instanceof ShadowRoot ? scope.host : (scope.documentElement ?? tablist));

  /** @param {string} view */
  function select(view) {
    for (const tab of tabs) {
      const on = tab.dataset.view === view;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      tab.classList.toggle("is-current", on);
    }
  }

  /** @param {string} view */
  function showPanel(view) {
    for (const tab of tabs) {
      const panel = panelOf(tab);
      // A panel that is shown in any case (the keyspace list) only moves: the styles place it
      // by `data-panel-view` below.
      if (panel && !panel.hasAttribute("data-always-shown")) panel.hidden = tab.dataset.view !== view;
    }
    holder.dataset.panelView = view;
  }

  /** @param {string} view */
  function show(view) {
    select(view);
    const wait = ready(view);
    if (wait === null) showPanel(view);
    else
      void wait.then(() => {
        if (shown === view) showPanel(view);
      });
  }

  for (const tab of tabs) {
    tab.addEventListener("click", () => store.set({ panelView: tab.dataset.view }));
    tab.addEventListener("keydown", (event) => {
      const i = tabs.indexOf(tab);
      /** @type {Record<string, number>} */
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
      store.set({ panelView: next.dataset.view });
      next.focus();
    });
  }

  /** @type {string | null} */
  let shown = null;
  store.subscribe((s) => {
    if (s.panelView !== shown) {
      shown = s.panelView;
      show(shown);
    }
  });
  shown = store.get().panelView;
  show(shown);
  tablist.hidden = false;
}
