// @ts-check
// zh-CN for the cache-aside simulation's metrics in the lab player's sim table
// (www/labs/sim-metrics.js).

/** @type {Record<string, string>} */
export const CACHE = {
  "Requests (reads and writes)": "请求数（读和写）",
  "Reads": "读请求",
  "Writes": "写请求",
  "Reads answered by a cache": "由缓存返回的读",
  "Reads answered by the database": "由数据库返回的读",
  "Hit ratio (any cache)": "命中率（任一层缓存）",
  "Local cache hits": "本地缓存命中数",
  "Local cache hit ratio": "本地缓存命中率",
  "Redis hit ratio (reads that reached Redis)": "Redis 命中率（到达 Redis 的读）",
  "Database queries asked for, per second": "每秒请求数据库的查询数",
  "Database queries per second without a cache": "不加缓存时每秒的数据库查询数",
  "Database queries finished, per second": "数据库每秒完成的查询数",
  "Most queries waiting for the database": "数据库排队查询数（最多时）",
  "Queries waiting for the database at the end": "结束时数据库排队查询数",
  "Redis commands asked for, per second": "每秒发往 Redis 的命令数",
  "Redis commands served, per second": "Redis 每秒处理的命令数",
  "Most commands waiting for Redis": "Redis 排队命令数（最多时）",
  "Share of requests kept off the database": "未打到数据库的请求占比",
  "Mean read latency (ms)": "平均读延迟（ms）",
  "Median (p50) read latency (ms)": "读延迟中位数 p50（ms）",
  "p99 read latency (ms)": "读延迟 p99（ms）",
  "Reads of a stale value": "读到旧值的次数",
  "Most staleness (ms after the write)": "最长不一致时间（写之后的 ms）",
  "Keys expired in Redis": "Redis 中过期的键",
  "Keys evicted from Redis": "Redis 中被淘汰的键",
  "Keys in Redis at the end": "结束时 Redis 中的键数",
  "Hit ratio in each tenth of the run": "每十分之一运行时间的命中率",
};
