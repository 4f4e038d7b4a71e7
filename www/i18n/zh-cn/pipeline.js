// @ts-check
// zh-CN for the pipelining lab's simulation table (www/labs/pipeline-table.js) and the page's
// measurement of its engine (www/engine/lab-adapters.js).

/** @type {Record<string, string>} */
export const PIPELINE = {
  "Pipeline simulation": "管道模拟",
  "{n} SETs": "{n} 条 SET",
  "Round trip: ": "往返时间：",
  "same host (loopback)": "同一台机器（本机回环）",
  "same data centre": "同一机房",
  "cross-region": "跨地域",
  "as given": "按给定值",
  "Server time per SET: ": "服务器处理每条 SET：",
  "redis-server 7.0.15, measured with redis-benchmark on the machine the lab was written on":
    "redis-server 7.0.15，在编写本实验的机器上用 redis-benchmark 实测",
  "the cost model (src/cost.rs): what the engine charges its virtual CPU for a SET": "成本模型（src/cost.rs）：引擎为每条 SET 记在虚拟 CPU 上的耗时",
  "this page's engine (wasm), measured now: {sets} SETs in {ms} ms": "本页面的引擎（wasm），刚刚实测：{sets} 条 SET 用时 {ms} ms",
  "Round trips": "往返次数",
  "Time": "耗时",
  "SETs per second": "每秒 SET 数",
  "Waiting": "等待网络",
  "Keys after": "结束时键数",
  "One at a time": "逐条发送",
  "Batches of 1": "每批 1 条",
  "Batches of {n}": "每批 {n} 条",
  "Pipelining is {x}× faster.": "管道快 {x} 倍。",
  "Break-even batch: {n}": "平衡批量：{n}",
  "The batch at which the server's work equals one round trip (round trip ÷ server time per SET)":
    "服务器处理一批命令的时间正好等于一次往返时的批量（往返时间 ÷ 每条 SET 的服务器耗时）",
  "{n} µs": "{n} µs",
  "{n} ms": "{n} ms",
  "batches of 1": "每批 1 条",
  "batches of {n}": "每批 {n} 条",
  "round trip {n} µs": "往返 {n} µs",
  "this page's engine, timed now": "本页面引擎（当场实测）",
  "the cost model": "成本模型",
  "{n} µs per SET as given": "每条 SET 按给定的 {n} µs",
  "redis-server as measured": "redis-server（实测值）",
  "pipeline simulation: {what}": "管道模拟：{what}",
  "this build of the engine cannot time its SETs; rebuild it with ./scripts/build-web.sh.":
    "当前构建的引擎无法测量 SET 的耗时，请用 ./scripts/build-web.sh 重新构建。",
  "The simulation's table (scrolls sideways)": "模拟结果表（可左右滚动）",
};
