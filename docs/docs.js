// The docs page's module: the one script a page with widgets needs. (Beside each example, the
// HTML that made it is filled in by a classic script in docs/index.html before this runs — so
// it shows even where modules cannot run, as in a page opened from file://.)

await import("../www/widget.js");
document.documentElement.dataset.docs = "ready";
