// @ts-check
// The zh-CN table for www/i18n.js: English text → Simplified Chinese, gathered from its parts
// (one per area of the page, so they can be written side by side). tests/unit/i18n.test.mjs
// checks that no key is in two parts, that every `t("…")` of www/ has an entry, and that every
// entry is used.

import { QUEUES } from "./zh-cn/queues.js";
import { SHELL } from "./zh-cn/shell.js";
import { LABS } from "./zh-cn/labs.js";
import { PIPELINE } from "./zh-cn/pipeline.js";
import { VIEWS } from "./zh-cn/views.js";
import { MONITOR } from "./zh-cn/monitor.js";
import { CACHE } from "./zh-cn/cache.js";

/** @type {Readonly<Record<string, string>>} */
export const ZH_CN = Object.freeze({ ...SHELL, ...VIEWS, ...QUEUES, ...LABS, ...PIPELINE, ...MONITOR, ...CACHE });
