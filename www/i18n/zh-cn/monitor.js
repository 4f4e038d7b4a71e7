// @ts-check
// zh-CN for the expiry view's monitor (expiry-monitor.js, expiry-monitor-model.js): what a
// dashboard plots from INFO and the alert rule. INFO field names stay in English; a space between
// Chinese and Latin words or numbers, as in the views part.

/** @type {Record<string, string>} */
export const MONITOR = {
  "Monitoring from INFO (scraped every virtual second)": "INFO 监控（每个虚拟秒采集一次）",
  "Alert rule": "告警规则",
  "alert when expired_stale_perc ≥ (%)": "expired_stale_perc ≥ (%) 时告警",
  "for (virtual s)": "持续（虚拟秒）",
  "article's rule: drop below (× earlier rate)": "原文规则：跌破（× 之前的速率）",
  "expired_keys per second": "每秒 expired_keys",
  "expire_cycle_cpu_milliseconds per second": "每秒 expire_cycle_cpu_milliseconds",
  "expired_time_cap_reached_count (hits per scrape)": "expired_time_cap_reached_count（每次采集的触顶次数）",
  "keys with a TTL (expires=)": "设置了 TTL 的键（expires=）",
  "The stale threshold is a percentage above 0, at most 100.": "过期键比例阈值是大于 0、不超过 100 的百分比。",
  "The duration is a whole number of seconds from 1 to 3600.": "持续时间是 1 到 3600 之间的整数秒。",
  "The drop ratio is a number between 0 and 1, such as 0.5.": "下跌比例是 0 到 1 之间的数，如 0.5。",
  "No INFO scrape yet: the monitor reads INFO once a virtual second while the clock moves.":
    "还没有采集到 INFO：时钟走动时，监控每个虚拟秒读一次 INFO。",
  "No alert: expired_stale_perc is {stale}%, under {threshold}%.": "无告警：expired_stale_perc 为 {stale}%，低于 {threshold}%。",
  "Pending: expired_stale_perc is {stale}%, at or above {threshold}% for {held} s of the {s} s the rule needs.":
    "待触发：expired_stale_perc 为 {stale}%，已连续 {held} 秒不低于 {threshold}%，规则要求持续 {s} 秒。",
  "Active expiry is throttled: expired_stale_perc has stayed at or above {threshold}% for {held} s (now {stale}%) and the cycle hit its time cap {caps} times meanwhile — it runs out of CPU budget before the dead keys are gone. {rate} expired; {expires} keys with a TTL, dead ones included.":
    "定期删除被限流了：expired_stale_perc 已连续 {held} 秒不低于 {threshold}%（现在 {stale}%），其间定期删除周期触到时间上限 {caps} 次——过期键还没清完，CPU 预算就用光了。过期速率 {rate}；设置了 TTL 的键 {expires} 个（含已过期未删除的）。",
  "Active expiry is falling behind: expired_stale_perc has stayed at or above {threshold}% for {held} s (now {stale}%) without the time cap being hit — each cycle stops on its own while dead keys remain (active-expire-effort makes it go on longer). {rate} expired; {expires} keys with a TTL, dead ones included.":
    "定期删除跟不上了：expired_stale_perc 已连续 {held} 秒不低于 {threshold}%（现在 {stale}%），但没有触到时间上限——每个周期在还有过期键时就自行停下了（调高 active-expire-effort 能让它多跑几轮）。过期速率 {rate}；设置了 TTL 的键 {expires} 个（含已过期未删除的）。",
  "The article's rule (expired/s over the last {s} s below {ratio} × the {long} s before): not enough scrapes yet.":
    "原文的规则（最近 {s} 秒的每秒过期数低于之前 {long} 秒的 {ratio} 倍）：采集的数据还不够。",
  "The article's rule fires: {recent} expired over the last {s} s, below {ratio} × the {before} of the {long} s before.":
    "原文的规则触发了：最近 {s} 秒过期速率 {recent}，低于之前 {long} 秒 {before} 的 {ratio} 倍。",
  "The article's rule is quiet: {recent} expired over the last {s} s, {before} the {long} s before.":
    "原文的规则未触发：最近 {s} 秒过期速率 {recent}，之前 {long} 秒为 {before}。",
};
