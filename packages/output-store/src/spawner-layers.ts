import { spawnEnv } from './env-names.js';
import { issueSpawnToken, type TokenSecret } from './spawn-token.js';
import type { SpawnerLayer } from './spawner.js';
import type { OutputRef, OutputStore } from './types.js';

/**
 * Options of {@link inputInjectLayer}.
 *
 * @example
 * ```ts
 * const options: InputInjectOptions = { intakeUrl: server.url, secret, tokenTtlMs: 600_000 };
 * ```
 */
export interface InputInjectOptions {
  readonly intakeUrl: string;
  readonly secret: TokenSecret;
  /** Token lifetime, default 1 hour. */
  readonly tokenTtlMs?: number;
  /** Outputs one spawn may store, default 64. */
  readonly maxOutputs?: number;
  /** Largest body one spawn may store, default 1 GiB. */
  readonly maxOutputBytes?: number;
  readonly now?: () => number;
}

/**
 * Injects, at spawn time, `IN_REFS` (the spec's input refs), the intake URL and a fresh token
 * scoped to the spawn and its inputs into the spawn's environment.
 *
 * @example
 * ```ts
 * const spawner = inputInjectLayer({ intakeUrl: server.url, secret })(processSpawner());
 * await spawner.spawn({ producer, inRefs: [ref], command: ['node', 'agent.mjs'] });
 * ```
 */
export function inputInjectLayer(options: InputInjectOptions): SpawnerLayer {
  const now = options.now ?? Date.now;
  return (inner) => ({
    spawn: (spec) => {
      const inRefs = spec.inRefs ?? [];
      const token = issueSpawnToken(
        {
          v: 1,
          ownerId: spec.producer.ownerId,
          runId: spec.producer.runId,
          spawnId: spec.producer.spawnId,
          ...(spec.producer.agent === undefined ? {} : { agent: spec.producer.agent }),
          readRefs: inRefs.map((ref) => ref.outId),
          expiresAt: now() + (options.tokenTtlMs ?? 3_600_000),
          maxOutputs: options.maxOutputs ?? 64,
          maxOutputBytes: options.maxOutputBytes ?? 2 ** 30,
        },
        options.secret,
      );
      return inner.spawn({
        ...spec,
        env: {
          ...spec.env,
          [spawnEnv.inRefs]: inRefs.map((ref) => ref.outId).join(','),
          [spawnEnv.outputUrl]: options.intakeUrl,
          [spawnEnv.outputToken]: token,
        },
      });
    },
  });
}

/**
 * Collects every output the spawn emitted (by owner, run and spawn id) once it ends, and
 * returns their refs with the spawn's result, oldest first.
 *
 * @example
 * ```ts
 * const result = await sinkLayer({ store })(spawner).spawn(spec);
 * console.log(result.outputs); // [{ outId: 'out_…' }, …]
 * ```
 */
export function sinkLayer(options: { readonly store: OutputStore }): SpawnerLayer {
  return (inner) => ({
    spawn: async (spec) => {
      const result = await inner.spawn(spec);
      const seen = new Set<string>();
      const outputs: OutputRef[] = [];
      const add = (ref: OutputRef) => {
        if (seen.has(ref.outId)) return;
        seen.add(ref.outId);
        outputs.push({ outId: ref.outId });
      };
      for (const ref of result.outputs ?? []) add(ref);
      let cursor: string | undefined;
      do {
        const page = await options.store.list({
          ownerId: spec.producer.ownerId,
          runId: spec.producer.runId,
          spawnId: spec.producer.spawnId,
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        });
        for (const record of page.records) add(record);
        cursor = page.nextCursor;
      } while (cursor);
      return { ...result, outputs };
    },
  });
}
