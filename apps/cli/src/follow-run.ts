import { setTimeout as sleep } from 'node:timers/promises';
import type { SwarmProgress, SwarmResult } from '@wharf/orchestrator';
import type { WharfClient } from '@wharf/orchestrator/client';
import type { CliIo } from './output.js';
import { changedLines, type ProgressViewOptions, progressLines } from './progress-view.js';

/** Options of {@link followRun}. */
export interface FollowRunOptions extends ProgressViewOptions {
  /** How often progress is read. Default 500 ms. */
  intervalMs?: number;
}

/**
 * `wharf run --follow`: redraws the task table (on a terminal; elsewhere one line per change)
 * until `until` settles, then, if the swarm ended (`result` resolved), draws it once more from
 * its result: a swarm that ends between two reads (an approved task that runs in a moment)
 * still shows its last lines.
 *
 * @example
 * ```ts
 * await followRun(wharf, workflowId, { result, until: Promise.race([result, interrupted]), io });
 * ```
 */
export async function followRun(
  wharf: Pick<WharfClient, 'progress'>,
  workflowId: string,
  run: { result: Promise<SwarmResult>; until: Promise<unknown>; io: CliIo },
  options: FollowRunOptions = {},
): Promise<void> {
  const { io } = run;
  let finished = false;
  const settle = () => {
    finished = true;
  };
  void run.until.then(settle, settle);
  const seen = new Map<string, string>();
  let drawn = 0;
  const draw = (progress: SwarmProgress) => {
    if (io.isTTY) {
      const lines = progressLines(progress, Date.now(), options);
      if (drawn > 0) io.out(`\u001b[${drawn}A\u001b[0J`.trimEnd());
      io.out(lines.join('\n'));
      drawn = lines.length + 1;
    } else {
      for (const line of changedLines(progress, seen, options)) io.out(line);
    }
  };
  while (!finished) {
    const progress = await wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined && !finished) draw(progress);
    await Promise.race([sleep(options.intervalMs ?? 500), run.until.catch(() => {})]);
  }
  const result = await Promise.race([run.result, run.until.then(() => undefined)]).catch(() => undefined);
  if (result !== undefined)
    draw({ swarm: result.swarm, status: result.status, step: 0, tasks: result.tasks });
}
