// The versions of the tools outside node_modules that change what the build and the tests
// do: Node, the Temporal CLI (its dev server), PostgreSQL, versitygw, Temporal's time-skipping
// test server and the Java that runs it, Chromium (the Web UI test), bubblewrap and the C
// compiler (the stdio-limits stream reader). `scripts/turbo.mjs` hashes them into
// WHARF_TOOLCHAIN, a `globalEnv` variable of turbo.json, so a new tool version is a cache miss.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The first line a command prints (stdout, else stderr), or `missing` when it cannot run. */
function firstLine(command, args, env) {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 15_000 }, (error, stdout, stderr) => {
      const text = `${stdout}`.trim() || `${stderr}`.trim();
      resolve(error && text === '' ? 'missing' : (text.split('\n')[0] ?? '').trim());
    });
  });
}

/** The folder of initdb and pg_ctl, looked up as the PostgreSQL test server does. */
async function postgresBindir(env) {
  const candidates = [];
  if (env.WHARF_PG_BINDIR) candidates.push(env.WHARF_PG_BINDIR);
  const fromPgConfig = await firstLine('pg_config', ['--bindir'], env);
  if (fromPgConfig !== 'missing') candidates.push(fromPgConfig);
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join('/usr/lib/postgresql', version, 'bin')));
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** versitygw prints only "git" for a version: the toolchain's stamp beside it, else its size. */
function versitygwVersion(env) {
  const binary = env.WHARF_VERSITYGW;
  if (!binary || !existsSync(binary)) return 'missing';
  const stamp = join(dirname(binary), 'version');
  if (existsSync(stamp)) return readFileSync(stamp, 'utf8').trim();
  return `${statSync(binary).size} bytes`;
}

/** The time-skipping server's start script (it names its versioned folder) and its jars. */
function timeSkippingServerVersion(env) {
  const script = env.WHARF_TIME_SKIPPING_SERVER;
  if (!script || !existsSync(script)) return 'missing';
  const lib = join(dirname(script), 'lib');
  const jars = existsSync(lib) ? readdirSync(lib).sort().join(',') : '';
  return createHash('sha256').update(readFileSync(script)).update(jars).digest('hex').slice(0, 16);
}

/**
 * Every tool's version, by name.
 *
 * @example
 * ```js
 * const versions = await toolchainVersions(process.env);
 * console.log(versions.temporal); // temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)
 * ```
 */
export async function toolchainVersions(env = process.env) {
  const bindir = await postgresBindir(env);
  const [temporal, postgres, java, chromium, bwrap, cc] = await Promise.all([
    firstLine(env.TEMPORAL_CLI_PATH || 'temporal', ['--version'], env),
    bindir ? firstLine(join(bindir, 'postgres'), ['--version'], env) : Promise.resolve('missing'),
    firstLine('java', ['-version'], env),
    firstLine(env.WHARF_CHROMIUM_PATH || '/usr/bin/chromium', ['--version'], env),
    firstLine('bwrap', ['--version'], env),
    firstLine(env.CC || 'cc', ['--version'], env),
  ]);
  return {
    node: process.version,
    temporal,
    postgres,
    versitygw: versitygwVersion(env),
    timeSkippingServer: timeSkippingServerVersion(env),
    java,
    chromium,
    bwrap,
    cc,
  };
}

/** One short hash of {@link toolchainVersions}' answer. */
export function toolchainFingerprint(versions) {
  const text = Object.entries(versions)
    .map(([tool, version]) => `${tool}=${version}`)
    .join('\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

// `node scripts/toolchain-fingerprint.mjs` prints the versions and their fingerprint.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const versions = await toolchainVersions(process.env);
  console.log(JSON.stringify({ versions, fingerprint: toolchainFingerprint(versions) }, null, 2));
}
