// @ts-check
// A session too long for an address (an RDB file in it) handed to the page that opens it: put in
// this origin's IndexedDB under a fresh id, the page opened with `?import=<id>`, which takes it
// out (once) — then, as every session, it lives in that page's history entry. A link can hold
// 2 MB at most, and a session with a loaded RDB file is up to about 6 MB of text.

const DB = "redisplay";
const STORE = "imports";

/** @returns {Promise<IDBDatabase>} */
function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * Runs `fn` on the store in one transaction; resolves with the request's result once committed.
 * @template T
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest<T>} fn
 * @returns {Promise<T>}
 */
async function withStore(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * Keeps `session` for the page that will open it; returns its id.
 * @param {import("./session").Session} session
 * @returns {Promise<string>}
 */
export async function stashSession(session) {
  const id = `${Date.now().toString(36)}-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}`;
  await withStore("readwrite", (store) => store.put(session, id));
  return id;
}

/**
 * The session stashed under `id`, taken out (a second call gets null); null when there is none
 * or IndexedDB is not available.
 * @param {string} id
 * @returns {Promise<unknown>}
 */
export async function takeStashedSession(id) {
  try {
    const session = await withStore("readonly", (store) => store.get(id));
    if (session !== undefined) await withStore("readwrite", (store) => store.delete(id));
    return session ?? null;
  } catch {
    return null;
  }
}
