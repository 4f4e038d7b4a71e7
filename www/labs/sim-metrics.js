// @ts-check
// What a simulation's metrics mean, in words, for the lab player's sim table (the table keeps
// the metric's name beside it, since the labs' texts quote the names). Only the cache-aside
// sim's metrics (src/sim/cache_aside.rs `Outcome`) are named so far; others show their name.

import { t } from "../i18n.js";

/**
 * The words for metric `key` of simulation `sim`, or null.
 * @param {string} sim
 * @param {string} key
 * @returns {string | null}
 */
export function simMetricLabel(sim, key) {
  if (sim !== "cache-aside") return null;
  switch (key) {
    case "requests":
      return t("Requests (reads and writes)");
    case "reads":
      return t("Reads");
    case "writes":
      return t("Writes");
    case "hits":
      return t("Reads answered by a cache");
    case "misses":
      return t("Reads answered by the database");
    case "hitRatio":
      return t("Hit ratio (any cache)");
    case "localHits":
      return t("Local cache hits");
    case "localHitRatio":
      return t("Local cache hit ratio");
    case "redisHitRatio":
      return t("Redis hit ratio (reads that reached Redis)");
    case "dbQueriesPerSecond":
      return t("Database queries asked for, per second");
    case "dbQueriesPerSecondWithoutCache":
      return t("Database queries per second without a cache");
    case "dbQpsServed":
      return t("Database queries finished, per second");
    case "dbQueueMax":
      return t("Most queries waiting for the database");
    case "dbQueueAtEnd":
      return t("Queries waiting for the database at the end");
    case "redisCommandsPerSecond":
      return t("Redis commands asked for, per second");
    case "redisQpsServed":
      return t("Redis commands served, per second");
    case "redisQueueMax":
      return t("Most commands waiting for Redis");
    case "loadAbsorbed":
      return t("Share of requests kept off the database");
    case "meanLatencyMs":
      return t("Mean read latency (ms)");
    case "p50LatencyMs":
      return t("Median (p50) read latency (ms)");
    case "p99LatencyMs":
      return t("p99 read latency (ms)");
    case "staleReads":
      return t("Reads of a stale value");
    case "maxStalenessMs":
      return t("Most staleness (ms after the write)");
    case "expiredKeys":
      return t("Keys expired in Redis");
    case "evictedKeys":
      return t("Keys evicted from Redis");
    case "keysInCache":
      return t("Keys in Redis at the end");
    case "hitRatioByTenth":
      return t("Hit ratio in each tenth of the run");
    default:
      return null;
  }
}
