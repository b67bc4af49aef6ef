import type { GcPolicy } from '@wharf/swarm';
import { type CollectGarbageOptions, collectGarbage, type GcReport } from './collect-garbage.js';

/** Options of {@link startGcSchedule}. */
export interface GcScheduleOptions {
  store: CollectGarbageOptions['store'];
  artifacts?: CollectGarbageOptions['artifacts'];
  policy: GcPolicy;
  /** Milliseconds between runs; the first runs one interval after the start. */
  intervalMs: number;
  /** Each finished run's report (e.g. to log it). */
  onReport?: (report: GcReport) => void;
  /** A run that failed; the schedule goes on. */
  onError?: (error: unknown) => void;
}

/** A running {@link startGcSchedule}. */
export interface GcSchedule {
  /** Runs one collection now (waits for one in progress first); resolves with its report. */
  runNow(): Promise<GcReport>;
  /** Stops the timer and waits for a collection in progress. */
  stop(): Promise<void>;
}

/**
 * Runs {@link collectGarbage} every `intervalMs` in the worker's process, one at a time (a
 * slow collection delays the next instead of overlapping it). The timer does not keep the
 * process alive.
 *
 * @example
 * ```ts
 * const gc = startGcSchedule({ store, artifacts, policy: { olderThanMs: 7 * 86_400_000 }, intervalMs: 3_600_000 });
 * await gc.stop();
 * ```
 */
export function startGcSchedule(options: GcScheduleOptions): GcSchedule {
  let running: Promise<GcReport> | undefined;
  let stopped = false;
  const run = (): Promise<GcReport> => {
    const previous = running ?? Promise.resolve(undefined);
    const next = previous
      .catch(() => undefined)
      .then(() =>
        collectGarbage({
          store: options.store,
          ...(options.artifacts === undefined ? {} : { artifacts: options.artifacts }),
          policy: options.policy,
        }),
      );
    running = next;
    void next.then(
      (report) => options.onReport?.(report),
      (error: unknown) => options.onError?.(error),
    );
    return next;
  };
  const timer = setInterval(() => {
    if (!stopped) void run().catch(() => undefined);
  }, options.intervalMs);
  timer.unref();
  return {
    runNow: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
