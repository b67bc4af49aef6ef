import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The orchestrator's folders are layers: a folder's files import its own files, the files at
// the root of src/ (orchestrator-error.ts) and the folders listed for it here, never one
// above it. The workflow-safe stack (shared → dsl → context, control → swarm, agent-loop → workflows)
// imports nothing of the Node side. Type imports count too. Tests may reach further up to
// compose what they test (an agent step through the worker's activities), so they are left out.

const pure = ['shared', 'dsl', 'context', 'control'];

/** Each folder of src/ and the folders its files may import. */
const layers: Record<string, readonly string[]> = {
  shared: [],
  dsl: ['shared'],
  context: ['shared', 'dsl'],
  control: ['shared', 'dsl'],
  swarm: [...pure],
  'agent-loop': [...pure],
  workflows: [...pure, 'swarm', 'agent-loop'],
  models: ['shared', 'dsl'],
  converter: ['shared'],
  gc: ['shared'],
  'dev-server': ['shared'],
  tracing: [],
  activities: [...pure, 'models'],
  agent: [...pure, 'models', 'activities', 'tracing'],
  client: [...pure],
  worker: [...pure, 'models', 'converter', 'gc', 'tracing', 'activities', 'agent'],
  embedded: [...pure, 'models', 'dev-server', 'tracing', 'activities', 'worker', 'client'],
  'data-dir': [...pure, 'models', 'activities', 'worker'],
  node: ['shared', 'models', 'converter'],
};

const src = dirname(fileURLToPath(import.meta.url));

/** Every import of another folder that the table does not allow, as `file → specifier`. */
function violations(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const folder = path.split('/')[0] as string;
    const allowed = layers[folder] ?? [];
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = relative(src, resolve(src, dirname(path), match[1] as string));
      const targetFolder = target.includes('/') ? (target.split('/')[0] as string) : undefined;
      if (targetFolder === undefined || targetFolder === folder || allowed.includes(targetFolder)) continue;
      found.push(`${path} → ${match[1]}`);
    }
  }
  return found;
}

/** The non-test sources of src/'s folders, by path relative to src/. */
function sources(): { path: string; text: string }[] {
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.includes('/') && path.endsWith('.ts') && !/\.test(\.data)?\.ts$/.test(path))
    .map((path) => ({ path, text: readFileSync(join(src, path), 'utf8') }));
}

describe('orchestrator layers', () => {
  it('places every folder of src/ in the table', () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(layers).sort());
  });

  it('has no arrow back up: each folder imports only the folders below it', () => {
    expect(violations(sources())).toEqual([]);
  });

  it('is a stack: no folder may import one that may import it, however far down', () => {
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      (layers[from] ?? []).some(
        (next) => next === to || (!seen.has(next) && seen.add(next) && reaches(next, to, seen)),
      );
    for (const folder of Object.keys(layers)) expect(reaches(folder, folder), folder).toBe(false);
  });

  it('sees an arrow back up, and lets a folder import itself and the root files', () => {
    const files = [
      { path: 'shared/types.ts', text: "import type { SwarmDefinition } from '../dsl/parse-swarm.js';" },
      { path: 'workflows/a.ts', text: "import { runScript } from '../activities/run-script.js';" },
      {
        path: 'agent/a.ts',
        text: "import { b } from './b.js';\nimport { WharfOrchestratorError } from '../orchestrator-error.js';",
      },
      { path: 'worker/a.ts', text: "const lazy = await import('../agent/agent-tools.js');" },
    ];
    expect(violations(files)).toEqual([
      'shared/types.ts → ../dsl/parse-swarm.js',
      'workflows/a.ts → ../activities/run-script.js',
    ]);
  });
});
