import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A command file imports what it shares with other commands from a module of its own outside
// commands/ (`load-swarm.ts`, `connect-server.ts`, `run-lifecycle.ts`…), never from another
// command: commands stay leaves that program.ts loads one at a time. A command's test may import
// the command it tests.

const src = dirname(fileURLToPath(import.meta.url));
const commands = join(src, 'commands');

/** Each import of one command file from another, as `file → specifier`. */
function crossImports(files: readonly { name: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { name, text } of files) {
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const specifier = match[1] as string;
      const target = resolve(commands, specifier);
      if (relative(commands, dirname(target)) !== '') continue;
      const subject = basename(target).replace(/\.js$/, '');
      if (name.startsWith(`${subject}.`) && /\.test\.ts$/.test(name)) continue;
      found.push(`${name} → ${specifier}`);
    }
  }
  return found;
}

describe('CLI commands', () => {
  it('import no other command: what they share lives in a module of its own', () => {
    const files = readdirSync(commands)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => ({ name, text: readFileSync(join(commands, name), 'utf8') }));
    expect(files.length).toBeGreaterThan(5);
    expect(crossImports(files)).toEqual([]);
  });

  it('sees a command importing another, type-only or dynamic, and lets one import shared modules', () => {
    const files = [
      {
        name: 'rerun.ts',
        text: "import { printResult } from './run.js';\nimport { x } from '../run-lifecycle.js';",
      },
      { name: 'status.ts', text: "import type { ServerOptions } from './control.js';" },
      { name: 'gc.ts', text: "const { loadSwarm } = await import('./validate.js');" },
      { name: 'emit.int.test.ts', text: "import { emitCommand } from './emit.js';" },
      { name: 'emit.int.test.ts', text: "import { runCommand } from './run.js';" },
    ];
    expect(crossImports(files)).toEqual([
      'rerun.ts → ./run.js',
      'status.ts → ./control.js',
      'gc.ts → ./validate.js',
      'emit.int.test.ts → ./run.js',
    ]);
  });
});
