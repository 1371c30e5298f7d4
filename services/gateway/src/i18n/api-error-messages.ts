import type { ApiErrorName } from '../http/error-codes.js';
import type { Localized } from './locales.js';

/**
 * The public error messages, by the API error's name (the `name` of every error body). These
 * are what a caller reads when the service's own words cannot be rendered in its language:
 * they may use only `{detail}` — the service's (English) message, kept because it names the
 * field or value at fault — so that every error can be answered in every language.
 */
export const API_ERROR_MESSAGES: Readonly<Record<ApiErrorName, Localized>> = {
  BAD_REQUEST: { en: 'The request is invalid: {detail}', 'zh-CN': '请求无效：{detail}' },
  UNAUTHENTICATED: { en: 'Sign in first: {detail}', 'zh-CN': '请先登录：{detail}' },
  TOKEN_EXPIRED: { en: 'Your session has expired; sign in again.', 'zh-CN': '登录已过期，请重新登录。' },
  TOKEN_WITHOUT_EXPIRY: {
    en: 'The token has no expiry and is refused; sign in again.',
    'zh-CN': '该令牌没有过期时间，已被拒绝，请重新登录。',
  },
  FORBIDDEN: { en: 'You may not do this: {detail}', 'zh-CN': '无权执行此操作：{detail}' },
  ACCOUNT_DELETED: {
    en: 'This account is being deleted or was deleted; nothing can be created in it any more.',
    'zh-CN': '该账号正在删除或已删除，无法再创建任何内容。',
  },
  NOT_FOUND: { en: 'Not found: {detail}', 'zh-CN': '未找到：{detail}' },
  PET_NOT_FOUND: {
    en: 'The pet was not found among your pets or the pets shared with you.',
    'zh-CN': '在你的宠物或与你共享的宠物中未找到该宠物。',
  },
  ASSET_IN_USE: { en: 'The image is still in use: {detail}', 'zh-CN': '该图片仍在使用中：{detail}' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { en: 'The webhook endpoint was not found.', 'zh-CN': '未找到该 Webhook 端点。' },
  WEBHOOK_DELIVERY_NOT_FOUND: { en: 'The webhook delivery was not found.', 'zh-CN': '未找到该 Webhook 投递记录。' },
  WEBHOOK_ENDPOINT_LIMIT: {
    en: 'You have registered the most webhook endpoints allowed; delete one first.',
    'zh-CN': 'Webhook 端点数量已达上限，请先删除一个。',
  },
  WEBHOOK_URL_NOT_ALLOWED: { en: 'This webhook URL is not allowed: {detail}', 'zh-CN': '不允许使用此 Webhook 地址：{detail}' },
  PROVIDER_CREDENTIAL_NOT_FOUND: { en: 'The vendor key was not found.', 'zh-CN': '未找到该服务商密钥。' },
  PROVIDER_CREDENTIAL_LIMIT: {
    en: 'You have registered the most vendor keys allowed; delete one first.',
    'zh-CN': '服务商密钥数量已达上限，请先删除一个。',
  },
  CREDENTIAL_MODE_NOT_ALLOWED: { en: 'This model cannot run with your own vendor key.', 'zh-CN': '此模型不支持使用您自己的服务商密钥。' },
  CREDENTIAL_PROVIDER_MISMATCH: {
    en: 'This vendor key is for another provider than the model.',
    'zh-CN': '此服务商密钥不适用于该模型的服务商。',
  },
  CREDENTIAL_REQUIRED: { en: 'This model runs only with a vendor key of your own.', 'zh-CN': '此模型只能使用您自己的服务商密钥运行。' },
  CREDENTIALS_UNAVAILABLE: { en: 'Vendor keys of your own cannot be used here.', 'zh-CN': '此处无法使用您自己的服务商密钥。' },
  WEBHOOK_URL_UNRESOLVABLE: { en: 'The webhook URL cannot be resolved: {detail}', 'zh-CN': '无法解析此 Webhook 地址：{detail}' },
  MEDIA_NOT_FOUND: { en: 'The image was not found.', 'zh-CN': '未找到该图片。' },
  POST_NOT_FOUND: { en: 'The post was not found.', 'zh-CN': '未找到该帖子。' },
  JOB_NOT_FOUND: { en: 'The generation was not found.', 'zh-CN': '未找到该生成任务。' },
  OUTBOX_EVENT_NOT_FOUND: { en: 'The outbox event was not found.', 'zh-CN': '未找到该发件箱事件。' },
  CONFLICT: { en: 'This conflicts with the current state: {detail}', 'zh-CN': '与当前状态冲突：{detail}' },
  VERSION_CONFLICT: {
    en: 'Someone changed this in the meantime; reload it and try again.',
    'zh-CN': '内容已被他人修改，请刷新后重试。',
  },
  IDEMPOTENCY_PAYLOAD_MISMATCH: {
    en: 'This Idempotency-Key was already used with a different request; use a new key.',
    'zh-CN': '该 Idempotency-Key 已用于另一个不同的请求，请使用新的键。',
  },
  UNPROCESSABLE: { en: 'The request cannot be carried out: {detail}', 'zh-CN': '无法处理该请求：{detail}' },
  MEDIA_NOT_READY: { en: 'The image is not ready yet; finish its upload first.', 'zh-CN': '图片尚未就绪，请先完成上传。' },
  GENERATION_RULE_VIOLATION: { en: 'This generation is not allowed: {detail}', 'zh-CN': '不允许此生成请求：{detail}' },
  GENERATION_QUOTA_EXCEEDED: { en: 'Your generation quota is used up for now.', 'zh-CN': '当前生成额度已用完。' },
  GENERATION_MONTHLY_QUOTA_EXCEEDED: {
    en: 'Your generations for this month are used up; they reset on the 1st of next month (UTC).',
    'zh-CN': '本月生成额度已用完，将于下月 1 日（UTC）重置。',
  },
  TOO_MANY_STREAMS: {
    en: 'Too many live job streams are open; close one first.',
    'zh-CN': '打开的任务实时连接过多，请先关闭一个。',
  },
  UPLOAD_QUOTA_EXCEEDED: { en: 'Your daily upload limit is reached.', 'zh-CN': '今日上传次数已达上限。' },
  STORAGE_QUOTA_EXCEEDED: { en: 'Your storage is full; delete images to make room.', 'zh-CN': '存储空间已满，请删除一些图片。' },
  POST_QUOTA_EXCEEDED: { en: 'Your daily post limit is reached.', 'zh-CN': '今日发帖数量已达上限。' },
  RATE_LIMITED: { en: 'Too many requests; slow down and try again shortly.', 'zh-CN': '请求过于频繁，请稍后再试。' },
  INTERNAL: { en: 'Something went wrong on our side.', 'zh-CN': '服务器内部错误。' },
  UNAVAILABLE: { en: 'A service is unavailable right now; try again shortly.', 'zh-CN': '服务暂时不可用，请稍后重试。' },
  PROVIDER_BUDGET_EXHAUSTED: {
    en: 'Generations with this model are paused until tomorrow (UTC); try again later.',
    'zh-CN': '该模型的生成已暂停至明天（UTC），请稍后再试。',
  },
};

/**
 * More precise messages for service reasons that send the values they were made from
 * (AppError.params, e.g. `{limit}`), by reason, or by `REASON:variant` when the reason's
 * params carry a `variant`. Used only when every placeholder has a value; otherwise the API
 * error's message above is.
 */
export const REASON_MESSAGES: Readonly<Record<string, Localized>> = {
  JOB_ALREADY_FINISHED: {
    en: 'The generation has already finished; it can no longer be cancelled.',
    'zh-CN': '该生成任务已经结束，无法再取消。',
  },
  'GENERATION_QUOTA_EXCEEDED:daily': {
    en: 'daily limit of {limit} generations reached; it resets at 00:00 UTC',
    'zh-CN': '今日 {limit} 次生成额度已用完，将于 UTC 时间 00:00 重置',
  },
  GENERATION_MONTHLY_QUOTA_EXCEEDED: {
    en: 'monthly limit of {limit} generations reached; it resets on the 1st of next month at 00:00 UTC',
    'zh-CN': '本月 {limit} 次生成额度已用完，将于下月 1 日 UTC 时间 00:00 重置',
  },
  'GENERATION_QUOTA_EXCEEDED:in_flight': {
    en: '{limit} generations are already queued or running; wait for one to finish',
    'zh-CN': '已有 {limit} 个生成任务在排队或运行中，请等待其中一个完成',
  },
  UPLOAD_QUOTA_EXCEEDED: {
    en: 'daily limit of {limit} uploads reached; it resets at 00:00 UTC',
    'zh-CN': '今日 {limit} 次上传额度已用完，将于 UTC 时间 00:00 重置',
  },
  STORAGE_QUOTA_EXCEEDED: {
    en: 'this upload of {sizeBytes} bytes would take your stored bytes past the limit of {limit} ({used} in use); delete images to make room',
    'zh-CN': '本次上传 {sizeBytes} 字节将超出存储上限 {limit} 字节（已用 {used} 字节），请删除一些图片以腾出空间',
  },
  POST_QUOTA_EXCEEDED: {
    en: 'daily limit of {limit} posts reached; it resets at 00:00 UTC',
    'zh-CN': '今日 {limit} 篇发帖额度已用完，将于 UTC 时间 00:00 重置',
  },
};
