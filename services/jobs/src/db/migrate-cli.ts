// `npm run migrate -w @atelier/jobs`: applies pending migrations to schema jobs and exits.
import { runMigrateCli } from '@atelier/orm';
import { JOBS_SCHEMA, createJobsOrm } from './jobs-orm.js';

await runMigrateCli('jobs', JOBS_SCHEMA, createJobsOrm);
