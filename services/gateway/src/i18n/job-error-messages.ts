import type { JobErrorReason } from '@atelier/job-types';
import type { Localized } from './locales.js';

/**
 * A job's public error message (the job view's `error.message`) by its reason (jobErrorReasonOf).
 * The English text is what the worker and the jobs service store; a job view in another
 * language is rendered from here. Placeholders come from the job view itself: `{attempt}` and
 * `{maxAttempts}` (its attempts), `{code}` (its error code), `{seconds}` (start deadline − created).
 */
export const JOB_ERROR_MESSAGES: Readonly<Record<JobErrorReason, Localized>> = {
  PROVIDER: { en: 'The image service could not make this image.', 'zh-CN': '图像服务未能生成这张图片。' },
  VALIDATION: { en: 'The image service returned an image we could not use.', 'zh-CN': '图像服务返回的图片无法使用。' },
  CONTENT_SAFETY: { en: 'This request was refused by the content policy.', 'zh-CN': '该请求因违反内容政策被拒绝。' },
  CREDENTIAL: { en: 'The image service is not available right now.', 'zh-CN': '图像服务暂时不可用。' },
  TIMEOUT: { en: 'The generation took too long.', 'zh-CN': '生成耗时过长。' },
  CANCELLED: { en: 'The generation was cancelled.', 'zh-CN': '生成任务已取消。' },
  INTERNAL: { en: 'Something went wrong on our side.', 'zh-CN': '我们这边出了点问题。' },
  START_DEADLINE_EXCEEDED: {
    en: 'No worker could start this generation within the {seconds} seconds it allowed (startWithinSeconds); it was not run and not charged.',
    'zh-CN': '在允许的 {seconds} 秒内（startWithinSeconds）没有可用的处理节点开始此生成任务；任务未运行，也未计费。',
  },
  LEASE_EXPIRED: {
    en: 'The generation stopped responding and was given up after its last attempt.',
    'zh-CN': '生成任务停止响应，在最后一次尝试后已放弃。',
  },
  RETRY_SCHEDULED: {
    en: 'Attempt {attempt} of {maxAttempts} did not succeed ({code}); it will be tried again shortly.',
    'zh-CN': '第 {attempt} 次尝试（共 {maxAttempts} 次）未成功（{code}），稍后将自动重试。',
  },
};
