// @ts-check
// zh-CN for the lab player's claim boxes (a source article's claim beside what Redis 7.0 does)
// and its raw-output items (www/labs/lab-player.js); the lab list's tracks are named in
// www/labs/data/index.json itself.

/** @type {Record<string, string>} */
export const LABS = {
  "Right": "正确",
  "Wrong": "错误",
  "Outdated": "已过时",
  "Partly right": "部分正确",
  "Not judged": "未判定",
  "The article says": "原文说法",
  "Redis 7.0 does": "Redis 7.0 实际表现",
  "Why": "原因",
  '(console {client} prints replies as redis-cli --raw: 北京, not "\\xe5\\x8c\\x97…")':
    "（控制台 {client} 切换为 redis-cli --raw 输出：显示「北京」，而不是 \"\\xe5\\x8c\\x97…\"）",
  "(console {client} prints replies as redis-cli does by default)": "（控制台 {client} 恢复 redis-cli 默认输出）",
};
