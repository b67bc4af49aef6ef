import { describe, expect, it } from 'vitest';
import { composeLayers, type Spawner, type SpawnerLayer, type SpawnSpec } from './spawner.js';

const spec: SpawnSpec = { producer: { ownerId: 'o', runId: 'r', spawnId: 's' } };

describe('composeLayers', () => {
  it('runs the first layer outermost and threads spec and result through every layer', async () => {
    const trail: string[] = [];
    const tag =
      (name: string): SpawnerLayer =>
      (inner) => ({
        spawn: async (given) => {
          trail.push(`${name}:in`);
          const result = await inner.spawn({ ...given, env: { ...given.env, [name]: '1' } });
          trail.push(`${name}:out`);
          return result;
        },
      });
    const base: Spawner = { spawn: async (given) => ({ value: Object.keys(given.env ?? {}) }) };
    const result = await composeLayers(tag('a'), tag('b'))(base).spawn(spec);
    expect(trail).toEqual(['a:in', 'b:in', 'b:out', 'a:out']);
    expect(result.value).toEqual(['a', 'b']);
  });

  it('is the identity with no layers', async () => {
    const base: Spawner = { spawn: async () => ({ exitCode: 0 }) };
    expect(await composeLayers()(base).spawn(spec)).toEqual({ exitCode: 0 });
  });
});
