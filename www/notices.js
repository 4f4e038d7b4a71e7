// @ts-check
// Messages for the user above the console: bad URL parameters, an engine that crashed and was
// restarted. Text only (textContent); each can be dismissed.

import { el } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {"info" | "warning" | "error"} NoticeKind */

/** Notices kept; older ones go when a new one comes. */
const MAX_NOTICES = 5;

/**
 * @param {HTMLElement} root  where the notices go
 */
export function createNotices(root) {
  /**
   * Shows a message (an error as an alert, the others as a status).
   * @param {string} text
   * @param {NoticeKind} [kind]
   */
  function show(text, kind = "info") {
    const item = el("div", `notice notice-${kind}`);
    item.setAttribute("role", kind === "error" ? "alert" : "status");
    const message = el("span", "notice-text", text);
    const close = el("button", "notice-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", t("Dismiss"));
    close.addEventListener("click", () => item.remove());
    item.append(message, close);
    root.append(item);
    // Keep only the latest few.
    while (root.childElementCount > MAX_NOTICES) root.firstElementChild?.remove();
    return item;
  }
  return { show };
}
