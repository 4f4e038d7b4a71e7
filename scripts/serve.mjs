// The README's static server (scripts/serve.sh runs it): sirv, a real static file server from
// npm, serving the checkout's root the way a CDN serves a site — each file's precompressed
// .br or .gz (scripts/precompress.mjs, run by scripts/build-web.sh) to the browsers that accept
// it, with the original's content type, ETags and `Vary: Accept-Encoding`.
//
// One guard a CDN doesn't need: a .br/.gz older than the file beside it (the file was edited
// after the last build) is deleted rather than served stale; run scripts/build-web.sh again to
// make it anew.
//
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]

import { createServer } from "node:http";
import { existsSync, statSync, unlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sirv from "sirv";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const port = Number(option("--port", "8080"));
const host = option("--host", "127.0.0.1");

const serve = sirv(ROOT, { dev: true, etag: true, brotli: true, gzip: true, dotfiles: false });

/** Deletes the .br/.gz of `file` when the file is newer than them. */
function dropStale(file) {
  if (!existsSync(file)) return;
  const mtime = statSync(file).mtimeMs;
  for (const ext of [".br", ".gz"]) {
    const packed = file + ext;
    if (existsSync(packed) && statSync(packed).mtimeMs < mtime) {
      unlinkSync(packed);
      console.warn(`${path.relative(ROOT, packed)} was older than its file: deleted (scripts/build-web.sh makes it anew)`);
    }
  }
}

const server = createServer((req, res) => {
  try {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = path.normalize(path.join(ROOT, pathname.endsWith("/") ? `${pathname}index.html` : pathname));
    if (file.startsWith(ROOT + path.sep)) dropStale(file);
  } catch {
    // A malformed URL: sirv answers it (404).
  }
  serve(req, res, () => {
    res.statusCode = 404;
    res.setHeader("content-type", "text/plain; charset=utf-8");
    res.end("not found\n");
  });
});
server.listen(port, host, () => {
  console.log(`redisplay is at  http://${host}:${port}/   (Ctrl-C stops it)`);
});
