import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The C sources of the stream reader, shipped with the package in `native/`. */
const nativeDir = fileURLToPath(new URL('../native/', import.meta.url));

/** A stream reader binary that runs here, and what it can do. */
export interface StreamReaderBinary {
  path: string;
  /** Built with zlib: it can write gzip spills (and read back the part Node wrote). */
  gzip: boolean;
}

/** Runs `path --probe`; the binary and its abilities when it runs on this machine. */
export function probeStreamReader(path: string): StreamReaderBinary | undefined {
  const result = spawnSync(path, ['--probe'], { stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  return { path, gzip: result.stdout.split(/\s/).includes('gzip') };
}

/**
 * The compiler invocations to try, best first: with zlib (gzip spills), then without it for a
 * machine that lacks zlib's header (Debian's zlib1g-dev), where gzip spills stay Node's.
 */
function compilerAttempts(output: string, zlib: boolean): { args: string[]; gzip: boolean }[] {
  const common = [
    '-O2',
    '-pthread',
    '-o',
    output,
    join(nativeDir, 'stream-reader.c'),
    join(nativeDir, 'sha256.c'),
  ];
  const withZlib = { args: ['-DWHARF_WITH_ZLIB', ...common, '-lz'], gzip: true };
  return [...(zlib ? [withZlib] : []), { args: common, gzip: false }];
}

/**
 * Compiles the stream reader into `output` with the system C compiler (`$CC`, else `cc`),
 * synchronously (the package build uses this), with zlib unless `zlib` is false or its header is
 * missing. Returns what was built, or why nothing was.
 *
 * @example
 * ```ts
 * const built = compileStreamReaderSync('dist/native/wharf-stream-reader');
 * if ('error' in built) console.warn(built.error);
 * ```
 */
export function compileStreamReaderSync(
  output: string,
  options: { zlib?: boolean } = {},
): StreamReaderBinary | { error: string } {
  mkdirSync(join(output, '..'), { recursive: true });
  const compiler = process.env.CC || 'cc';
  let error = '';
  for (const attempt of compilerAttempts(output, options.zlib ?? true)) {
    const result = spawnSync(compiler, attempt.args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (result.status === 0) return { path: output, gzip: attempt.gzip };
    error = result.error?.message ?? (result.stderr.trim().split('\n').at(-1) || `exit ${result.status}`);
  }
  rmSync(output, { force: true });
  return { error: `${compiler} could not build the stream reader (${error})` };
}
