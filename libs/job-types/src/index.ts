export {
  JOB_EXECUTORS,
  JOB_TYPES,
  describedJobType,
  findJobType,
  isOperatorOnlyJobType,
  type JobExecutorKind,
  type JobTypeDescription,
  type JobTypeName,
} from './job-types.js';
