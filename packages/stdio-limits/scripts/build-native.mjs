#!/usr/bin/env node
// Compiles the stream reader (native/stream-reader.c) into dist/native/ with the system C
// compiler. Optional: without a compiler, or where it fails, captures read every stream in Node
// (slower on fast streams; nothing else changes), and the build goes on.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../native/stream-reader.c', import.meta.url));
const outputDir = fileURLToPath(new URL('../dist/native/', import.meta.url));
const output = `${outputDir}wharf-stream-reader`;
if (process.platform === 'win32') process.exit(0);
mkdirSync(outputDir, { recursive: true });
const compiler = process.env.CC || 'cc';
const result = spawnSync(compiler, ['-O2', '-o', output, source], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (result.status !== 0) {
  rmSync(output, { force: true });
  console.warn(
    `@wharf/stdio-limits: ${compiler} could not build the stream reader (${result.error?.message ?? `exit ${result.status}`}); ` +
      'captures will read every stream in Node.',
  );
}
