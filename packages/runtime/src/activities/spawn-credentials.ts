import { issueSpawnToken, spawnEnv, type TokenSecret } from '@wharf/output-store';
import type { SubagentInput } from '@wharf/swarm';
import { type SubagentIds, safeId } from './activity-identity.js';

/** Options of {@link spawnCredentials}. */
export interface SpawnCredentialsOptions {
  /** Base URL of the intake server (`createIntakeServer`). */
  intakeUrl: string;
  /** The intake server's HMAC secret. */
  secret: TokenSecret;
  /** Token lifetime. Default 6 hours. */
  ttlMs?: number;
  /** Most outputs one spawn may EMIT. Default 100. */
  maxOutputs?: number;
  /** Largest body one spawn may EMIT. Default 1 GiB. */
  maxOutputBytes?: number;
  /**
   * Most input refs listed in a token, default 128. A spawn with more (a wide join) gets
   * `readRun` instead: it may read every output of its run. The token travels as an HTTP
   * header and an environment variable, so it must stay a few KiB whatever the fan-in.
   */
  maxTokenRefs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Per-spawn environment for subagents that EMIT over HTTP (`cmd | wharf emit`): the intake
 * URL and a fresh token scoped to the spawn's owner, run and job, allowed to read exactly
 * its IN_REFS (or, past `maxTokenRefs` of them, every output of its run). Pass it as `spawnEnv` to `createActivities` / `createWharfWorker`.
 *
 * @example
 * ```ts
 * const worker = await createWharfWorker({ ...deps, spawnEnv: spawnCredentials({ intakeUrl: intake.url, secret }) });
 * ```
 */
export function spawnCredentials(
  options: SpawnCredentialsOptions,
): (ids: SubagentIds, input: SubagentInput) => Record<string, string> {
  const now = options.now ?? Date.now;
  const maxTokenRefs = options.maxTokenRefs ?? 128;
  return (ids, input) => ({
    [spawnEnv.outputUrl]: options.intakeUrl,
    [spawnEnv.outputToken]: issueSpawnToken(
      {
        v: 1,
        ownerId: ids.ownerId,
        runId: ids.runId,
        spawnId: ids.jobId,
        ...(input.inRefs.length > maxTokenRefs
          ? {
              readRefs: [],
              readRun: true,
              ...(input.readRuns === undefined ? {} : { readRuns: input.readRuns.slice(0, 100).map(safeId) }),
            }
          : { readRefs: input.inRefs }),
        expiresAt: now() + (options.ttlMs ?? 6 * 3_600_000),
        maxOutputs: options.maxOutputs ?? 100,
        maxOutputBytes: options.maxOutputBytes ?? 2 ** 30,
      },
      options.secret,
    ),
  });
}
