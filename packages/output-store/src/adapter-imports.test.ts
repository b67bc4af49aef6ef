import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each storage backend has a folder of its own. A backend imports the contracts and the shared
// modules at src/'s root (`output-row.ts`, `types.ts`, `blobs/`), never a sibling backend: what
// two backends share moves to a neutral module both import. Only the composition root that
// picks a backend (`config/`) and tests that compare backends reach into several.
const backends = ['sqlite', 'postgres', 's3'];

const src = dirname(fileURLToPath(import.meta.url));

/** Each import of one backend's folder from another's, as `file → specifier`. */
function siblingImports(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const folder = path.split('/')[0] as string;
    if (!backends.includes(folder)) continue;
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = relative(src, resolve(src, dirname(path), match[1] as string)).split('/')[0] as string;
      if (target !== folder && backends.includes(target)) found.push(`${path} → ${match[1]}`);
    }
  }
  return found;
}

/** The non-test sources of src/, by path relative to src/. */
function sources(): { path: string; text: string }[] {
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !/\.test(\.data)?\.ts$/.test(path))
    .map((path) => ({ path, text: readFileSync(join(src, path), 'utf8') }));
}

describe('output-store backends', () => {
  it('each backend folder exists', () => {
    const folders = readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (const backend of backends) expect(folders.map((entry) => entry.name)).toContain(backend);
  });

  it('import no sibling backend: what they share lives in a neutral module', () => {
    expect(siblingImports(sources())).toEqual([]);
  });

  it('sees a sibling import, type-only or dynamic, and lets a backend import the shared modules', () => {
    const files = [
      { path: 'postgres/a.ts', text: "import type { OutputRow } from '../sqlite/row.js';" },
      { path: 's3/a.ts', text: "const store = await import('../sqlite/sqlite-output-store.js');" },
      {
        path: 'sqlite/a.ts',
        text: "import { rowToRecord } from '../output-row.js';\nimport { b } from './b.js';\nimport type { BlobStore } from '../blobs/blob-store.js';",
      },
      { path: 'config/a.ts', text: "import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';" },
    ];
    expect(siblingImports(files)).toEqual([
      'postgres/a.ts → ../sqlite/row.js',
      's3/a.ts → ../sqlite/sqlite-output-store.js',
    ]);
  });
});
