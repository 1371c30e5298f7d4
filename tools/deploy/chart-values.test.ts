// Values the chart must refuse, with a message that says what is wrong: values.schema.json for
// shapes and types, the templates for what needs the whole picture (missing secrets in strict
// mode, both autoscalers when schema validation is skipped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Helm, ensureHelm, productionValues, type RenderOptions } from './helm.js';

let helm: Helm;

beforeAll(() => {
  ensureHelm();
  helm = new Helm();
}, 180_000);

afterAll(() => helm?.dispose());

/** helm template's failure message; fails the test when helm renders instead. */
function refusal(options: RenderOptions): string {
  const result = helm.run(helm.templateArgs(options));
  if (result.status === 0) throw new Error(`helm template accepted ${JSON.stringify(options)}`);
  expect(result.stderr).not.toMatch(/panic|goroutine/);
  return result.stderr;
}

describe('chart - values.schema.json refuses bad values', () => {
  it.each([
    ['a negative replica count', { 'gateway.replicas': '-1' }, /\/gateway\/replicas': minimum: got -1, want 0/],
    ['a replica count that is not a number', { 'jobs.replicas': 'two' }, /\/jobs\/replicas': got string, want integer/],
    ['an unknown key in a service block', { 'catalog.replicaz': '2' }, /\/catalog': additional properties 'replicaz' not allowed/],
    ['an unknown top-level key', { databse: 'x' }, /additional properties 'databse' not allowed/],
    ['an image pull policy Kubernetes does not know', { 'image.pullPolicy': 'Sometimes' }, /\/image\/pullPolicy': value must be one of/],
    ['a log level the services do not know', { logLevel: 'verbose' }, /\/logLevel': value must be one of/],
    ['a stream prefix the services would refuse', { 'nats.streamPrefix': 'atelier' }, /\/nats\/streamPrefix': .*does not match pattern/],
    ['a negative drain timeout', { 'worker.drainTimeoutMs': '-5' }, /\/worker\/drainTimeoutMs': minimum/],
    ['a memory request that is no quantity', { 'media.resources.requests.memory': 'lots' }, /\/media\/resources\/requests\/memory/],
    ['an env entry that overrides a chart-owned port', { 'catalog.env.GRPC_PORT': '"1"' }, /invalid propertyName 'GRPC_PORT'/],
    ['a secret given as an env entry', { 'jobs.env.DATABASE_URL': 'postgres://x' }, /invalid propertyName 'DATABASE_URL'/],
    [
      'an env entry that would change the stream KEDA watches',
      { 'worker.env.NATS_STREAM_PREFIX': 'OTHER' },
      /invalid propertyName 'NATS_STREAM_PREFIX'/,
    ],
    ['an ingress without hosts', { 'ingress.enabled': 'true' }, /\/ingress\/hosts/],
    ['a negative event retention', { 'jobs.retention.jobEventsDays': '-1' }, /\/jobs\/retention\/jobEventsDays': minimum/],
    ['the retention set behind the typed value', { 'jobs.env.OUTBOX_RETENTION_MS': '"1"' }, /invalid propertyName 'OUTBOX_RETENTION_MS'/],
    ['no vendor URL once provider-sim is off', { 'providerSim.enabled': 'false' }, /\/provider\/url': minLength: got 0, want 1/],
    [
      'no pet service address once pet-directory-sim is off',
      { 'petDirectorySim.enabled': 'false' },
      /\/petDirectory\/address': minLength: got 0, want 1/,
    ],
    [
      'a pet service address that is no host:port',
      { 'petDirectory.address': 'https://pets' },
      /\/petDirectory\/address': .*does not match pattern/,
    ],
    [
      'a pet service identity that is no service name',
      { 'petDirectory.identity': 'Pets' },
      /\/petDirectory\/identity': .*does not match pattern/,
    ],
    ['a seeded pet without an owner', { 'petDirectorySim.seed[0].id': '019a3c1e-7f00-7000-8000-00000000f001' }, /ownerUserId/],
  ])('%s', (_what, set, message) => {
    expect(refusal({ set })).toMatch(message);
  });

  it('refuses a release without the pet service in the template too, when schema validation is skipped', () => {
    const message = refusal({ set: { 'petDirectorySim.enabled': 'false' }, extraArgs: ['--skip-schema-validation'] });
    expect(message).toContain('petDirectory.address is required when petDirectorySim.enabled is false');
  });

  it('refuses the HPA and the KEDA ScaledObject together', () => {
    expect(refusal({ set: { 'worker.autoscaling.keda.enabled': 'true' } })).toMatch(
      /\/worker\/autoscaling\/keda\/enabled': value must be false/,
    );
  });

  it('refuses an HPA whose minimum exceeds its maximum', () => {
    const set = { 'worker.autoscaling.hpa.minReplicas': '5', 'worker.autoscaling.hpa.maxReplicas': '2' };
    expect(refusal({ set })).toContain('worker.autoscaling.hpa: minReplicas exceeds maxReplicas');
  });

  it('refuses both autoscalers in the template too, when schema validation is skipped', () => {
    const message = refusal({ set: { 'worker.autoscaling.keda.enabled': 'true' }, extraArgs: ['--skip-schema-validation'] });
    expect(message).toContain('worker.autoscaling: enable hpa or keda, not both');
  });
});

describe('chart - strictSecrets refuses missing secrets', () => {
  it('names the first secret that has neither a value nor an existingSecret', () => {
    // NATS credentials set, so that a secret reference is what is missing.
    expect(refusal({ set: { strictSecrets: 'true', 'nats.token.value': 't' } })).toMatch(
      /set [a-zA-Z.]+\.existingSecret \(a Secret you manage\) or [a-zA-Z.]+\.value; strictSecrets is on/,
    );
  });

  it.each([
    ['database.jobs.existingSecret', /DATABASE_URL: set database\.jobs\.existingSecret/],
    ['s3.secretAccessKey.existingSecret', /S3_SECRET_ACCESS_KEY: set s3\.secretAccessKey\.existingSecret/],
    ['provider.apiKey.existingSecret', /PROVIDER_API_KEY: set provider\.apiKey\.existingSecret/],
    ['productEvents.userKey.existingSecret', /PRODUCT_EVENTS_USER_KEY: set productEvents\.userKey\.existingSecret/],
  ])('refuses the production values without %s', (key, message) => {
    expect(refusal({ valuesFiles: [productionValues], set: { [key]: '' } })).toMatch(message);
  });

  it.each(['catalog', 'jobs', 'media', 'worker', 'gateway'])('refuses production values without NATS credentials for %s', (service) => {
    expect(refusal({ valuesFiles: [productionValues], set: { [`nats.users.${service}.user`]: '' } })).toMatch(
      new RegExp(`NATS credentials of ${service}: set nats\\.users\\.${service}\\.user and \\.password`),
    );
    expect(refusal({ valuesFiles: [productionValues], set: { [`nats.users.${service}.password.existingSecret`]: '' } })).toMatch(
      new RegExp(`NATS_PASSWORD: set nats\\.users\\.${service}\\.password\\.existingSecret`),
    );
  });

  it('refuses production values that give the gateway neither a JWKS URL nor a key', () => {
    expect(refusal({ valuesFiles: [productionValues], set: { 'jwt.jwksUrl': '' } })).toMatch(
      /JWT_PUBLIC_KEY: set jwt\.publicKey\.existingSecret/,
    );
  });

  it.each(['issuer', 'audience'])('refuses production values without jwt.%s (the gateway would refuse to start)', (key) => {
    expect(refusal({ valuesFiles: [productionValues], set: { [`jwt.${key}`]: '' } })).toMatch(
      new RegExp(`jwt\\.${key} is required when strictSecrets is on`),
    );
  });

  it('refuses production values without an S3 endpoint', () => {
    expect(refusal({ valuesFiles: [productionValues], set: { 's3.endpoint': '' } })).toMatch(
      /s3\.endpoint is required when strictSecrets is on/,
    );
  });

  it('accepts a secret given as a value in strict mode', () => {
    const result = helm.run(
      helm.templateArgs({
        valuesFiles: [productionValues],
        set: { 'database.jobs.existingSecret': '', 'database.jobs.value': 'postgres://j@db/atelier' },
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
