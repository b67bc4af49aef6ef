import type { ContextMessage, OutputMethod, Reference } from '@wharf/context-resolver';

/** Sizes of one context-resolver benchmark run. */
export interface ResolverWorkload {
  messages: number;
  paths: number;
  resolutions: number;
  /** Resolutions measured for the naive scan (it is too slow for all of them). */
  naiveResolutions: number;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so every run sees the same context. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `index`-th distinct path: `group<g>.field<f>`, about 100 fields per group. */
export function pathOf(index: number): string[] {
  return [`group${index % 100}`, `field${Math.floor(index / 100)}`];
}

/**
 * Builds `messages` output messages spread over `paths` distinct paths, as `applyOutput` writes
 * them. A quarter of the paths are lists (10% set, 70% push, 20% concat), a quarter are objects
 * (20% set, 80% merge), the rest scalars (set).
 */
export function buildMessages(workload: ResolverWorkload, seed = 1): ContextMessage[] {
  const next = random(seed);
  const date = '2025-10-26T12:00:00Z';
  const messages: ContextMessage[] = new Array(workload.messages);
  for (let index = 0; index < workload.messages; index++) {
    const pathIndex = Math.floor(next() * workload.paths);
    const [group, field] = pathOf(pathIndex) as [string, string];
    const roll = next();
    let method: OutputMethod = 'set';
    let value: unknown = index;
    if (pathIndex % 4 === 0) {
      method = roll < 0.1 ? 'set' : roll < 0.8 ? 'push' : 'concat';
      value = method === 'push' ? index : [index];
    } else if (pathIndex % 4 === 1) {
      method = roll < 0.2 ? 'set' : 'merge';
      value = { [`k${index % 7}`]: index };
    }
    messages[index] = {
      type: 'data',
      data: { [group]: { [field]: value } },
      _date: date,
      _outputMethod: method,
      _path: `${group}.${field}`,
    } as ContextMessage;
  }
  return messages;
}

/** `count` random leaf references over the workload's paths. */
export function buildQueries(workload: ResolverWorkload, count: number, seed = 2): Reference[] {
  const next = random(seed);
  return Array.from({ length: count }, () => ({
    kind: 'data',
    path: pathOf(Math.floor(next() * workload.paths)),
  }));
}
