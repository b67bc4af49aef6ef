#!/usr/bin/env node
// Compiles the stream reader (native/*.c) into dist/native/ with the system C compiler, with
// zlib where its header is found (gzip spills), without it elsewhere (gzip spills then stay
// Node's). Optional: without a compiler, or where it fails, the build goes on and captures read
// every stream in Node (slower on fast streams; nothing else changes).
import { compileStreamReaderSync } from '../dist/stream-reader-build.js';

if (process.platform !== 'win32') {
  const built = compileStreamReaderSync(
    new URL('../dist/native/wharf-stream-reader', import.meta.url).pathname,
  );
  if ('error' in built)
    console.warn(`@wharf/stdio-limits: ${built.error}; captures will read every stream in Node.`);
  else if (!built.gzip)
    console.warn('@wharf/stdio-limits: no zlib header (zlib1g-dev): gzip spills will be written by Node.');
}
