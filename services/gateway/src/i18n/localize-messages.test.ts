import { describe, expect, it } from 'vitest';
import { localizedErrorMessage, localizedJobView } from './localize-messages.js';

describe('localize messages - errors', () => {
  it('keeps the English message as written', () => {
    expect(localizedErrorMessage({ apiError: 'BAD_REQUEST', message: 'body.prompt is required' }, 'en')).toBe('body.prompt is required');
  });

  it("renders a reason's own message from its params, by variant first", () => {
    const source = {
      apiError: 'GENERATION_QUOTA_EXCEEDED' as const,
      reason: 'GENERATION_QUOTA_EXCEEDED',
      params: { variant: 'daily', limit: 20 },
      message: 'daily limit of 20 generations reached; it resets at 00:00 UTC',
    };
    expect(localizedErrorMessage(source, 'zh-CN')).toBe('今日 20 次生成额度已用完，将于 UTC 时间 00:00 重置');
    expect(localizedErrorMessage({ ...source, params: { variant: 'in_flight', limit: 2 } }, 'zh-CN')).toBe(
      '已有 2 个生成任务在排队或运行中，请等待其中一个完成',
    );
    const monthly = {
      apiError: 'GENERATION_MONTHLY_QUOTA_EXCEEDED' as const,
      reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
      params: { variant: 'monthly', allowance: 'monthly', limit: 300, resetsAt: '2027-01-01T00:00:00.000Z' },
      message: 'monthly limit of 300 generations reached; it resets on the 1st of next month at 00:00 UTC',
    };
    expect(localizedErrorMessage(monthly, 'zh-CN')).toBe('本月 300 次生成额度已用完，将于下月 1 日 UTC 时间 00:00 重置');
    expect(localizedErrorMessage({ ...monthly, params: {} }, 'zh-CN')).toBe('本月生成额度已用完，将于下月 1 日（UTC）重置。');
  });

  it("falls back to the API error's message, quoting the English detail, when params are missing", () => {
    expect(localizedErrorMessage({ apiError: 'POST_QUOTA_EXCEEDED', reason: 'POST_QUOTA_EXCEEDED', message: 'x' }, 'zh-CN')).toBe(
      '今日发帖数量已达上限。',
    );
    expect(localizedErrorMessage({ apiError: 'BAD_REQUEST', message: 'body.prompt is required' }, 'zh-CN')).toBe(
      '请求无效：body.prompt is required',
    );
  });
});

describe('localize messages - job views', () => {
  const view = {
    status: 'cancelled',
    attempts: { count: 0, max: 3 },
    error: { code: 'START_DEADLINE_EXCEEDED', message: 'No worker could start this generation within the 30 seconds …' },
    createdAt: '2026-12-03T10:00:00.000Z',
    startDeadlineAt: '2026-12-03T10:00:30.000Z',
  };

  it('renders the reason of the error code in Chinese with the view’s values, and leaves English alone', () => {
    expect(localizedJobView(view, 'en')).toBe(view);
    expect(localizedJobView(view, 'zh-CN').error?.message).toContain('30 秒');
    const retrying = { ...view, status: 'queued', attempts: { count: 1, max: 3 }, error: { code: 'PROVIDER_UNAVAILABLE', message: '…' } };
    expect(localizedJobView(retrying, 'zh-CN').error).toEqual({
      code: 'PROVIDER_UNAVAILABLE',
      message: '第 1 次尝试（共 3 次）未成功（PROVIDER_UNAVAILABLE），稍后将自动重试。',
    });
    const failed = { ...view, status: 'failed', error: { code: 'CONTENT_SAFETY_FLAGGED', message: '…' } };
    expect(localizedJobView(failed, 'zh-CN').error?.message).toBe('该请求因违反内容政策被拒绝。');
  });
});
