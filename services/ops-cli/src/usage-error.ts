import { AppError, ErrorCode } from '@atelier/errors';
import type { HelpTopic } from './cli-commands.js';

/** The command line is wrong. `topic` says whose usage to print with the message (undefined: the overview). */
export class UsageError extends AppError {
  override name = 'UsageError';
  readonly topic: HelpTopic | undefined;

  constructor(message: string, topic: HelpTopic | undefined) {
    super(ErrorCode.INVALID_ARGUMENT, message, { reason: 'USAGE' });
    this.topic = topic;
  }
}
