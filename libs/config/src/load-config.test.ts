import { describe, expect, it } from 'vitest';
import { ConfigError, bool, doc, hostPort, int, loadConfig, oneOf, optional, port, str, url } from './index.js';

const spec = {
  GRPC_PORT: port(50051),
  DATABASE_URL: url({ protocols: ['postgres:', 'postgresql:'], default: 'postgres://postgres@127.0.0.1:5432/atelier', secret: true }),
  LOG_LEVEL: oneOf(['debug', 'info', 'warn'], 'info'),
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  LEASE_TTL_MS: int({ default: 60000, min: 1000, max: 3_600_000 }),
  S3_FORCE_PATH_STYLE: bool(true),
  S3_ENDPOINT: optional(url({ protocols: ['http:', 'https:'] })),
  JWT_ISSUER: optional(str()),
};

describe('config - load from environment', () => {
  it('applies defaults and parses types', () => {
    const config = loadConfig(spec, {});
    expect(config).toEqual({
      GRPC_PORT: 50051,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/atelier',
      LOG_LEVEL: 'info',
      CATALOG_ADDR: '127.0.0.1:50051',
      LEASE_TTL_MS: 60000,
      S3_FORCE_PATH_STYLE: true,
      S3_ENDPOINT: undefined,
      JWT_ISSUER: undefined,
    });
  });

  it('reads given values', () => {
    const config = loadConfig(spec, {
      GRPC_PORT: '0',
      S3_FORCE_PATH_STYLE: 'false',
      CATALOG_ADDR: 'catalog:50051',
      S3_ENDPOINT: 'http://127.0.0.1:4569',
    });
    expect(config.GRPC_PORT).toBe(0);
    expect(config.S3_FORCE_PATH_STYLE).toBe(false);
    expect(config.CATALOG_ADDR).toBe('catalog:50051');
    expect(config.S3_ENDPOINT).toBe('http://127.0.0.1:4569');
  });

  it('reports every bad variable by name, in one error', () => {
    let caught: unknown;
    try {
      loadConfig(spec, { GRPC_PORT: 'eighty', LOG_LEVEL: 'loud', LEASE_TTL_MS: '5', CATALOG_ADDR: 'nocolon' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.map((p) => p.variable);
    expect(problems).toEqual(['GRPC_PORT', 'LOG_LEVEL', 'CATALOG_ADDR', 'LEASE_TTL_MS']);
    expect((caught as ConfigError).message).toContain('GRPC_PORT must be an integer, got "eighty"');
    expect((caught as ConfigError).message).toContain('LEASE_TTL_MS must be between 1000 and 3600000, got 5');
  });

  it('fails on a required variable that is missing', () => {
    expect(() => loadConfig({ JWT_AUDIENCE: str() }, {})).toThrow('JWT_AUDIENCE is required but not set');
  });

  it('never echoes the value of a secret variable', () => {
    const secretUrl = 'mysql://admin:hunter2@db/x';
    expect(() => loadConfig(spec, { DATABASE_URL: secretUrl })).toThrow(/DATABASE_URL is invalid: expected a URL/);
    try {
      loadConfig(spec, { DATABASE_URL: secretUrl });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('config - what a variable does (doc)', () => {
  it('travels with the spec, through optional(), and changes nothing parsed', () => {
    const documented = optional(doc(int({ default: 5, min: 1 }), 'pg connections of the service'));
    expect(documented.doc).toBe('pg connections of the service');
    expect(documented.describe).toBe('an integer in 1..9007199254740991 (optional)');
    expect(documented.parse('7')).toBe(7);
    expect(doc(str({ secret: true }), 'a key').secret).toBe(true);
    expect(doc(str(), 'the pets served', "the development users' pets").shownDefault).toBe("the development users' pets");
  });
});
