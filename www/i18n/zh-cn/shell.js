// @ts-check
// zh-CN for the page's frame: top bar, consoles, labs panel, notices, widget (www/i18n.js).
// Redis terms as the Chinese Redis community writes them: 过期 (expire), 惰性删除 (lazy
// expiration), 定期删除 (active expiration), 淘汰策略 (eviction policy), 有序集合 (sorted set),
// 跳表 (skiplist), 主从复制 (replication), 持久化 (persistence); command names stay in English.

/** @type {Record<string, string>} */
export const SHELL = {
  "This lab is shown in English: {why}.": "本实验暂以英文显示：{why}。",
};
