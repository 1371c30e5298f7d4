import { describe, expect, it } from 'vitest';
import { JOB_ERROR_REASONS } from '@atelier/job-types';
import { ApiError, REASONS_WITH_A_CODE } from '../http/error-codes.js';
import { API_ERROR_MESSAGES, REASON_MESSAGES } from './api-error-messages.js';
import { catalogProblems } from './catalog-check.js';
import { JOB_ERROR_MESSAGES } from './job-error-messages.js';

// The reason lists come from their sources of truth, never from a copy here: a reason added to
// the ApiError table or to JOB_ERROR_REASONS without a message in every language fails below.
const apiReasons = Object.keys(ApiError);
const jobReasons = [...JOB_ERROR_REASONS];

describe('message catalog - completeness', () => {
  it('has an English and a Simplified Chinese message for every API error, using only {detail}', () => {
    expect(catalogProblems(apiReasons, API_ERROR_MESSAGES, ['detail'])).toEqual([]);
  });

  it('has both languages for every job error reason, with the placeholders a job view gives', () => {
    expect(catalogProblems(jobReasons, JOB_ERROR_MESSAGES, ['attempt', 'maxAttempts', 'code', 'seconds'])).toEqual([]);
  });

  it('has both languages, with the same placeholders, for every reason-specific message of a known API reason', () => {
    expect(catalogProblems([], REASON_MESSAGES)).toEqual([]);
    const knownReasons = [...apiReasons, ...REASONS_WITH_A_CODE];
    for (const key of Object.keys(REASON_MESSAGES)) expect(knownReasons).toContain(key.split(':')[0]);
  });
});

describe('message catalog - the check fails when it should', () => {
  it('names a reason that lacks a message, or a language', () => {
    const { TIMEOUT: _dropped, ...withoutTimeout } = JOB_ERROR_MESSAGES;
    expect(catalogProblems(jobReasons, withoutTimeout)).toEqual(['TIMEOUT: no message']);
    const noChinese = { ...API_ERROR_MESSAGES, RATE_LIMITED: { en: 'slow down', 'zh-CN': '' } };
    expect(catalogProblems(apiReasons, noChinese)).toEqual(['RATE_LIMITED: no zh-CN message']);
  });

  it('names a reason whose placeholders differ between languages, or that uses one it is never given', () => {
    const drifted = { ...REASON_MESSAGES, POST_QUOTA_EXCEEDED: { en: 'limit of {limit} posts', 'zh-CN': '已达 {max} 篇上限' } };
    expect(catalogProblems([], drifted)).toEqual(['POST_QUOTA_EXCEEDED: zh-CN placeholders {max} differ from en {limit}']);
    const stray = { ...API_ERROR_MESSAGES, INTERNAL: { en: 'oops {id}', 'zh-CN': '出错 {id}' } };
    expect(catalogProblems(apiReasons, stray, ['detail'])).toEqual([
      'INTERNAL: en uses {id}, which it is never given',
      'INTERNAL: zh-CN uses {id}, which it is never given',
    ]);
  });
});
