// @ts-check
// zh-CN for the views: keyspace, sorted set, expiry, eviction, delay queue, persistence (www/i18n.js).
// Redis terms as the Chinese Redis community writes them: 过期 (expire), 惰性删除 (lazy
// expiration), 定期删除 (active expiration), 淘汰策略 (eviction policy), 有序集合 (sorted set),
// 跳表 (skiplist), 主从复制 (replication), 持久化 (persistence); command names stay in English.

/** @type {Record<string, string>} */
export const VIEWS = {};
