// The keys of the memory measurement (ops.mjs `measureMemory`, run in headless Chromium by
// chromium.mjs) as RESP on stdout, for a real redis-server:
//
//   node tools/bench/memory.mjs [--keys 1000000] | redis-cli -p PORT --pipe
//
// scripts/bench.sh reads INFO memory before and after (redis-memory-{before,after}.txt).
import { memoryKey, memoryValue } from "./ops.mjs";

const argv = process.argv.slice(2);
let keys = 1_000_000;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--keys") keys = Number(argv[++i]);
  else throw new Error(`unknown option ${argv[i]}`);
}

const resp = (args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;

async function write() {
  let chunk = "";
  for (let i = 0; i < keys; i++) {
    chunk += resp(["SET", memoryKey(i), memoryValue(i)]);
    if (chunk.length > 1 << 20) {
      if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once("drain", r));
      chunk = "";
    }
  }
  process.stdout.write(chunk);
}
await write();
