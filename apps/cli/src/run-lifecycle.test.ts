import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SwarmResult } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { failUnlessCompleted } from './run-lifecycle.js';

const src = dirname(fileURLToPath(import.meta.url));

const result = (status: SwarmResult['status'], failedCount: number) =>
  ({ swarm: 'nightly', status, metrics: { failedCount } }) as unknown as SwarmResult;

describe('run lifecycle', () => {
  it('ends a swarm that did not complete with exit 1, naming how many tasks did not', () => {
    expect(() => failUnlessCompleted(result('completed', 0))).not.toThrow();
    let error: unknown;
    try {
      failUnlessCompleted(result('failed', 2));
    } catch (caught) {
      error = caught;
    }
    expect(CliError.isInstance(error) && error.code).toBe('SWARM_FAILED');
    expect(CliError.isInstance(error) && error.exitCode).toBe(1);
    expect((error as Error).message).toBe('swarm nightly failed: 2 task(s) did not complete');
  });

  it('is the one place that starts a run worker, listens for Ctrl-C and awaits a run', () => {
    // `wharf run`, `rerun` and `resume` share this life through runToEnd; a command that wires
    // the worker, the interrupt watch or the wait itself writes it a second time.
    const code = (path: string) =>
      readFileSync(join(src, path), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/)/.test(line))
        .join('\n');
    const users = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !/\.test\.ts$/.test(path))
      .filter((path) => /from '[./]+(start-run-worker|await-run)\.js'|new InterruptWatch\(/.test(code(path)));
    expect(users.sort()).toEqual(['run-lifecycle.ts']);
  });
});
