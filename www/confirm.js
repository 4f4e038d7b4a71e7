// @ts-check
// A question before something discards work: a modal <dialog> with the question, what happens,
// and two buttons. Resolves true for the first (go ahead), false for the second, Escape or a
// click outside. Text only (textContent).

import { el } from "./dom.js";
import { t } from "./i18n.js";

/**
 * @param {{title: string, text: string, confirm: string, cancel?: string}} question
 * @returns {Promise<boolean>}
 */
export function confirmDiscard({ title, text, confirm, cancel = t("Cancel") }) {
  const dialog = el("dialog", "confirm-dialog");
  dialog.setAttribute("aria-labelledby", "confirm-title");
  dialog.setAttribute("aria-describedby", "confirm-text");
  const heading = el("h2", "confirm-title", title);
  heading.id = "confirm-title";
  const body = el("p", "confirm-text", text);
  body.id = "confirm-text";
  const actions = el("form", "confirm-actions");
  actions.method = "dialog";
  const no = el("button", "btn", cancel);
  no.value = "cancel";
  const yes = el("button", "btn btn-danger", confirm);
  yes.value = "confirm";
  actions.append(no, yes);
  dialog.append(heading, body, actions);
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "confirm");
      dialog.remove();
    });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close("cancel");
    });
    dialog.showModal();
    no.focus();
  });
}
