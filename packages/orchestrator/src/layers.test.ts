import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layers are packages now: an arrow back up needs a dependency the package.json does not
// declare. What dependencies cannot say is checked here: the sandbox-safe packages declare no
// Node-only or Temporal-worker dependency, and their sources import no Node builtin.

const packages = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Dependencies a sandbox-safe package may declare. */
const allowed: Record<string, readonly string[]> = {
  swarm: [
    '@wharf/common',
    '@wharf/channels',
    '@wharf/context-resolver',
    '@wharf/stdio-limits',
    'yaml',
    'zod',
  ],
  workflows: [
    '@temporalio/common',
    '@temporalio/workflow',
    '@wharf/common',
    '@wharf/channels',
    '@wharf/context-resolver',
    '@wharf/swarm',
  ],
};

/** The runtime dependencies a package declares that it may not. */
function foreignDependencies(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  return declared.filter((dependency) => !(allowed[name] ?? []).includes(dependency));
}

/** Files of a package's src/ (tests too: they run in the same sandbox-free runner) importing `node:`. */
function nodeImports(name: string): string[] {
  const src = join(packages, name, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
    .filter((path) => /(?:from\s+|import\s*\(\s*)['"]node:/.test(readFileSync(join(src, path), 'utf8')));
}

describe('sandbox-safe packages', () => {
  it.each(Object.keys(allowed))('@wharf/%s declares no Node-only or Temporal-worker dependency', (name) => {
    expect(foreignDependencies(name)).toEqual([]);
  });

  it.each(Object.keys(allowed))('@wharf/%s imports no node: module', (name) => {
    expect(nodeImports(name)).toEqual([]);
  });

  it('sees a dependency outside the list', () => {
    expect(foreignDependencies('orchestrator')).toContain('@temporalio/worker');
  });
});
