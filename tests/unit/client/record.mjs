// Records what ioredis 5 gives for scenarios.mjs against a real redis-server 7.0 into
// expected.json (client.test.mjs holds redisplay's client to it). Not a test; run by hand:
//
//   redis-server --port 7900 --save '' --appendonly no --daemonize yes
//   node tests/unit/client/record.mjs 7900        # needs tools/bench/node_modules (npm ci there)
//
// Each scenario runs on a flushed server with two fresh clients; `wait(ms)` really sleeps.
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { scenarios } from "./scenarios.mjs";

const port = Number(process.argv[2] ?? 7900);
const require = createRequire(new URL("../../../tools/bench/package.json", import.meta.url));
const Redis = require("ioredis");
const version = require("ioredis/package.json").version;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = new Redis({ port });
const server = (await admin.info("server")).match(/redis_version:(\S+)/)[1];
const results = {};
for (const [name, run] of Object.entries(scenarios)) {
  await admin.flushall();
  await admin.script("FLUSH");
  const r = new Redis({ port });
  const other = new Redis({ port });
  process.stderr.write(`${name}\n`);
  results[name] = await run(r, other, wait);
  r.disconnect();
  other.disconnect();
}
admin.disconnect();
const out = { recorded: `ioredis ${version} against redis-server ${server}`, results };
await writeFile(new URL("./expected.json", import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
console.log(`expected.json: ${Object.keys(results).length} scenarios (${out.recorded})`);
