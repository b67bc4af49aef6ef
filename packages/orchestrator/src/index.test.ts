import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The root entry point is workflow-safe: workflow code, browsers and other sandboxes may import
// it. These tests walk every value import reachable from an entry (our sources, and the built
// entry points of the Wharf packages it reaches) and list what would break a sandbox.

/** Packages known to run anywhere (no Node builtins); the Wharf packages are walked instead. */
const PURE_PACKAGES = new Set(['zod', 'yaml', '@temporalio/common', '@temporalio/workflow']);

const here = dirname(fileURLToPath(import.meta.url));

/** Value imports and re-exports of a module (`import type` / `export type` are erased). */
function valueImports(text: string): string[] {
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers: string[] = [];
  const statement = /(?:^|;|\n)\s*(import|export)\s+(type\s+)?([^;'"]*?from\s+)?['"]([^'"]+)['"]/g;
  for (const match of withoutComments.matchAll(statement)) {
    if (match[2] !== undefined) continue;
    if (match[1] === 'export' && match[3] === undefined) continue;
    specifiers.push(match[4] as string);
  }
  for (const match of withoutComments.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    specifiers.push(match[1] as string);
  }
  return specifiers;
}

/** Every module that cannot run in a sandbox, reachable from `entry`, with how it is reached. */
function sandboxBreakers(entry: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const walk = (file: string, via: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of valueImports(readFileSync(file, 'utf8'))) {
      const chain = `${via} → ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        walk(file.endsWith('.ts') ? target.replace(/\.js$/, '.ts') : target, chain);
      } else if (specifier.startsWith('@wharf/')) {
        // Resolved from the importing file: each package reaches only its own dependencies.
        walk(createRequire(file).resolve(specifier), chain);
      } else if (!PURE_PACKAGES.has(specifier)) {
        problems.push(chain);
      }
    }
  };
  walk(entry, entry.slice(entry.lastIndexOf('/src/') + 1));
  return problems;
}

describe('entry points', () => {
  it('the root imports no Node builtin and no Node-only package, however deep', () => {
    expect(sandboxBreakers(resolve(here, 'index.ts'))).toEqual([]);
  });

  it('the walk does see what breaks a sandbox (the Node-only subpath)', () => {
    const problems = sandboxBreakers(resolve(here, 'node.ts'));
    expect(problems.some((chain) => chain.endsWith('node:crypto'))).toBe(true);
    expect(problems.some((chain) => chain.endsWith('@ai-sdk/openai'))).toBe(true);
  });

  it('reads value imports and skips type-only ones', () => {
    const text = [
      "import type { A } from 'ai';",
      "import { b, type C } from './b.js';",
      "export type { D } from 'node:fs';",
      "export { e } from './e.js';",
      "import 'node:os';",
      "const f = await import('better-sqlite3');",
      '// import { g } from "node:path";',
    ].join('\n');
    expect(valueImports(text)).toEqual(['./b.js', './e.js', 'node:os', 'better-sqlite3']);
  });
});
