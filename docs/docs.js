// The docs page: beside each example, the HTML that made it — read from the example itself
// before the widget script upgrades it (the widget then adds role, aria-label and data-state),
// so what is shown is what is running. Then the one module script a page needs.

function serializeAttributes(element) {
  return [...element.attributes].map((a) => (a.value === "" ? ` ${a.name}` : ` ${a.name}="${a.value.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`)).join("");
}

/** The element as written: its tag, attributes in order (bare when empty) and children's HTML. */
function snippetOf(element) {
  const tag = element.localName;
  const inner = [...element.childNodes]
    .map((n) => (n.nodeType === Node.ELEMENT_NODE ? n.outerHTML : n.nodeType === Node.TEXT_NODE ? n.textContent.replace(/&/g, "&amp;").replace(/</g, "&lt;") : ""))
    .join("");
  return `<${tag}${serializeAttributes(element)}>${inner}</${tag}>`;
}

for (const example of document.querySelectorAll(".example")) {
  const widget = example.querySelector("redis-playground");
  const code = example.querySelector(".snippet code");
  if (widget && code) code.textContent = snippetOf(widget);
}

await import("../www/widget.js");
document.documentElement.dataset.docs = "ready";
