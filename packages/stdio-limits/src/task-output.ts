import type { ProcessCapture } from './capture-process.js';
import type { TruncationStrategy } from './cut-marker.js';
import type { TaskOutput } from './schemas.js';

/** Options of {@link taskOutputFromCapture}. */
export interface TaskOutputFromCaptureOptions {
  taskId: string;
  capture: ProcessCapture;
  strategy: TruncationStrategy;
  /** Completion time in epoch milliseconds. */
  now: number;
  agent?: string;
  /** Tasks that depend on this output. */
  dependedBy?: readonly string[];
}

/**
 * The {@link TaskOutput} to keep in workflow state for a captured process: the retained stdout
 * (and stderr, when there was any) with the spill path of stdout as the external copy.
 *
 * @example
 * ```ts
 * const capture = await captureProcess('make', { limits });
 * state = recordTaskOutput(state, taskOutputFromCapture({ taskId: 'build', capture, strategy: limits.truncation_strategy, now: Date.now() }));
 * ```
 */
export function taskOutputFromCapture(options: TaskOutputFromCaptureOptions): TaskOutput {
  const { stdout, stderr } = options.capture;
  const hasStderr = stderr.totalBytes > 0;
  const filePath = stdout.spill?.path ?? stderr.spill?.path;
  return {
    taskId: options.taskId,
    outputType: hasStderr ? 'combined' : 'stdout',
    content: hasStderr ? `${stdout.text}\n--- stderr ---\n${stderr.text}` : stdout.text,
    originalSize: stdout.totalBytes + stderr.totalBytes,
    truncated: stdout.truncated || stderr.truncated,
    strategy: options.strategy,
    ...(filePath === undefined ? {} : { filePath }),
    relevanceScore: 0,
    completedAt: options.now,
    lastAccessed: options.now,
    dependedBy: [...(options.dependedBy ?? [])],
    ...(options.agent === undefined ? {} : { agent: options.agent }),
  };
}
