import type { OutputRef, Producer } from './types.js';

/**
 * What to start: who the spawn produces for, the refs it reads (`IN_REFS`), extra
 * environment, and either a command line (process spawners) or a free-form input.
 *
 * @example
 * ```ts
 * const spec: SpawnSpec = {
 *   producer: { ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3', agent: 'summariser' },
 *   inRefs: [{ outId: 'out_3fZ8kQ1xP0aLm2Vb' }],
 *   command: ['node', 'summarise.mjs'],
 * };
 * ```
 */
export interface SpawnSpec {
  readonly producer: Producer;
  readonly inRefs?: readonly OutputRef[];
  readonly env?: Readonly<Record<string, string>>;
  readonly command?: readonly string[];
  readonly input?: unknown;
}

/**
 * What a spawn returned: its exit code (processes), the refs it emitted, and a small value.
 *
 * @example
 * ```ts
 * const result: SpawnResult = { exitCode: 0, outputs: [{ outId: 'out_3fZ8kQ1xP0aLm2Vb' }] };
 * ```
 */
export interface SpawnResult {
  readonly exitCode?: number | null;
  readonly outputs?: readonly OutputRef[];
  readonly value?: unknown;
}

/**
 * Starts one unit of work and resolves when it ends.
 *
 * @example
 * ```ts
 * const echo: Spawner = { spawn: async (spec) => ({ value: spec.input }) };
 * ```
 */
export interface Spawner {
  spawn(spec: SpawnSpec): Promise<SpawnResult>;
}

/**
 * Middleware around a {@link Spawner}: takes the inner spawner, returns one of the same shape.
 *
 * @example
 * ```ts
 * const logging: SpawnerLayer = (inner) => ({
 *   spawn: async (spec) => { console.log('task-start', spec.producer.spawnId); return inner.spawn(spec); },
 * });
 * ```
 */
export type SpawnerLayer = (inner: Spawner) => Spawner;

/**
 * Composes layers into one; the first listed is the outermost (sees the spec first and the
 * result last).
 *
 * @example
 * ```ts
 * const spawner = composeLayers(sinkLayer({ store }), inputInjectLayer({ intakeUrl, secret }))(processSpawner());
 * ```
 */
export function composeLayers(...layers: readonly SpawnerLayer[]): SpawnerLayer {
  return (inner) => layers.reduceRight<Spawner>((wrapped, layer) => layer(wrapped), inner);
}
