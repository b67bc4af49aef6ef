import { ApplicationFailure, type Logger, type LogLevel, type LogMetadata } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { swarmOutcomeLogger } from './swarm-outcome-logger.js';

function recorder(): { logger: Logger; entries: [LogLevel, string, LogMetadata | undefined][] } {
  const entries: [LogLevel, string, LogMetadata | undefined][] = [];
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    entries.push([level, message, meta]);
  };
  return {
    entries,
    logger: {
      log,
      trace: (message, meta) => log('TRACE', message, meta),
      debug: (message, meta) => log('DEBUG', message, meta),
      info: (message, meta) => log('INFO', message, meta),
      warn: (message, meta) => log('WARN', message, meta),
      error: (message, meta) => log('ERROR', message, meta),
    },
  };
}

describe('swarmOutcomeLogger', () => {
  it("logs a failed swarm's outcome as its workflow id and message, without the stack", () => {
    const { logger, entries } = recorder();
    const error = ApplicationFailure.create({
      type: 'WharfSwarmFailed',
      message: 'swarm s failed: a failed (exit 1)',
    });
    swarmOutcomeLogger(logger).warn('Workflow failed', { workflowId: 'w1', runId: 'r', error });
    expect(entries).toEqual([
      ['WARN', 'Workflow failed', { workflowId: 'w1', error: 'swarm s failed: a failed (exit 1)' }],
    ]);
  });

  it('recognises the outcome in an error cloned from the workflow thread (its type lost)', () => {
    const { logger, entries } = recorder();
    const error = new Error('swarm s failed: a failed (exit 1)');
    swarmOutcomeLogger(logger).warn('Workflow failed', {
      workflowId: 'w1',
      workflowType: 'swarmWorkflow',
      error,
    });
    expect(entries).toEqual([
      ['WARN', 'Workflow failed', { workflowId: 'w1', error: 'swarm s failed: a failed (exit 1)' }],
    ]);
  });

  it("with swarmFailures: 'none', drops a failed swarm's outcome and keeps every other entry", () => {
    const { logger, entries } = recorder();
    const wrapped = swarmOutcomeLogger(logger, { swarmFailures: 'none' });
    const outcome = ApplicationFailure.create({ type: 'WharfSwarmFailed', message: 'swarm s failed: a' });
    wrapped.warn('Workflow failed', { workflowId: 'w1', error: outcome });
    const cloned = new Error('swarm s failed: a failed (exit 1)');
    wrapped.warn('Workflow failed', { workflowId: 'w1', workflowType: 'swarmWorkflow', error: cloned });
    const bug = ApplicationFailure.create({ type: 'Boom', message: 'bug' });
    wrapped.warn('Workflow failed', { workflowId: 'w2', error: bug });
    wrapped.error('Worker failed', { activityType: 'runSubagent' });
    expect(entries).toEqual([
      ['WARN', 'Workflow failed', { workflowId: 'w2', error: bug }],
      ['ERROR', 'Worker failed', { activityType: 'runSubagent' }],
    ]);
  });

  it('passes every other entry through unchanged, other workflow failures included', () => {
    const { logger, entries } = recorder();
    const error = ApplicationFailure.create({ type: 'Boom', message: 'bug' });
    const wrapped = swarmOutcomeLogger(logger);
    wrapped.warn('Workflow failed', { workflowId: 'w1', error });
    const bug = new Error('swarm code failed: not an outcome');
    wrapped.warn('Workflow failed', { workflowId: 'w2', workflowType: 'otherWorkflow', error: bug });
    wrapped.info('Worker state changed', { state: 'RUNNING' });
    expect(entries).toEqual([
      ['WARN', 'Workflow failed', { workflowId: 'w1', error }],
      ['WARN', 'Workflow failed', { workflowId: 'w2', workflowType: 'otherWorkflow', error: bug }],
      ['INFO', 'Worker state changed', { state: 'RUNNING' }],
    ]);
  });

  it('logs a failed activity in one line, once per run and reason, without task token or stack; full keeps the SDK entry', () => {
    const { logger, entries } = recorder();
    const failed = (attempt: number) => ({
      activityType: 'agentPrepare',
      workflowId: 'w1/agent/build',
      attempt,
      taskToken: 'dG9rZW4=',
      error: new Error(
        'task build (agent coder): unknown tool "lookup"; tools on this worker: built-ins only\n    at prepare (x.js:1:1)',
      ),
    });
    const quiet = swarmOutcomeLogger(logger);
    for (const attempt of [1, 2, 3]) quiet.warn('Activity failed', failed(attempt));
    expect(entries).toEqual([
      [
        'WARN',
        'Activity failed: agentPrepare of w1/agent/build: task build (agent coder): unknown tool "lookup"; tools on this worker: built-ins only',
        undefined,
      ],
    ]);
    const cause = new Error('task build (agent coder): unknown tool "lookup"');
    const childFailed = {
      workflowType: 'agentTaskWorkflow',
      workflowId: 'w1/agent/build',
      error: new Error('Activity task failed', { cause }),
    };
    quiet.warn('Workflow failed', childFailed);
    quiet.warn('Workflow failed', childFailed);
    expect(entries.slice(1)).toEqual([
      [
        'WARN',
        'Workflow failed: agent task w1/agent/build: task build (agent coder): unknown tool "lookup"',
        undefined,
      ],
    ]);
    entries.length = 1;
    swarmOutcomeLogger(logger, { activityFailures: 'full' }).warn('Activity failed', failed(1));
    expect(entries[1]?.[2]).toMatchObject({ taskToken: 'dG9rZW4=' });
  });

  it('keeps an activity that completed after its run was cancelled at DEBUG, in one line; full keeps the entry', () => {
    const { logger, entries } = recorder();
    const meta = {
      sdkComponent: 'core',
      taskToken: 'TaskToken(abc)',
      details: 'workflow execution already completed',
    };
    const message =
      'Activity not found on completion. This may happen if the activity has already been cancelled but completed anyway.';
    swarmOutcomeLogger(logger).warn(message, meta);
    expect(entries).toEqual([
      [
        'DEBUG',
        'An activity finished after its run had ended (cancelled or terminated); its result was dropped',
        undefined,
      ],
    ]);
    const full = recorder();
    swarmOutcomeLogger(full.logger, { activityFailures: 'full' }).warn(message, meta);
    expect(full.entries).toEqual([['WARN', message, meta]]);
  });
});
