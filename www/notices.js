// Messages for the user above the console: bad URL parameters, an engine that crashed and was
// restarted. Text only (textContent); each can be dismissed.

export function createNotices(root) {
  function show(text, kind = "info") {
    const item = document.createElement("div");
    item.className = `notice notice-${kind}`;
    item.setAttribute("role", kind === "error" ? "alert" : "status");
    const message = document.createElement("span");
    message.className = "notice-text";
    message.textContent = text;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "notice-close";
    close.textContent = "×";
    close.setAttribute("aria-label", "Dismiss");
    close.addEventListener("click", () => item.remove());
    item.append(message, close);
    root.append(item);
    // Keep only the latest few.
    while (root.childElementCount > 5) root.firstElementChild.remove();
    return item;
  }
  return { show };
}
