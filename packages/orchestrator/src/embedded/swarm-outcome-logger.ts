import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import { swarmFailedErrorType } from '@wharf/swarm';

/** Options of {@link swarmOutcomeLogger}. */
export interface SwarmOutcomeLoggerOptions {
  /**
   * How a swarm that ended failed is logged: `line` (default), one short line; `none`, not at
   * all, for a caller that reports the failure itself (`wharf run` prints the result).
   */
  swarmFailures?: 'line' | 'none';
}

/**
 * Wraps a worker logger so that a swarm ending failed (`WharfSwarmFailed`, an outcome the
 * caller reports with the result) logs one short line — workflow id and the failure's message
 * — instead of the SDK's stack trace, or nothing with `swarmFailures: 'none'`. Every other
 * entry passes through unchanged, other workflows' failures included.
 *
 * @example
 * ```ts
 * Runtime.install({ logger: swarmOutcomeLogger(new DefaultLogger('WARN'), { swarmFailures: 'none' }) });
 * ```
 */
export function swarmOutcomeLogger(base: Logger, options: SwarmOutcomeLoggerOptions = {}): Logger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    if (message === 'Workflow failed' && isSwarmOutcome(meta)) {
      if (options.swarmFailures === 'none') return;
      const error = meta?.error as { message?: unknown };
      base.log(level, message, { workflowId: meta?.workflowId, error: String(error.message) });
      return;
    }
    base.log(level, message, meta);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/**
 * The failure a swarm ends with. Logged from the workflow thread, the error may arrive as a
 * structured clone that lost its `type`; its message (from `describeSwarmFailure`) remains.
 */
function isSwarmOutcome(meta: LogMetadata | undefined): boolean {
  const error = meta?.error as { type?: unknown; message?: unknown } | undefined;
  if (error?.type === swarmFailedErrorType) return true;
  return (
    meta?.workflowType === 'swarmWorkflow' &&
    typeof error?.message === 'string' &&
    /^swarm .+ failed: /.test(error.message)
  );
}
