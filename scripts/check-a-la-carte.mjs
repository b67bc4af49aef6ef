#!/usr/bin/env node
// À la carte check, run in CI after the tests: every published package is packed with
// `pnpm pack` (workspace: and catalog: versions resolved as on npm), installed with npm
// into an empty project of its own — the package, plus only what its README example
// itself imports — and that example is run there as written. A package that needs a file
// it does not ship, a dependency it does not declare, or another package's internals
// fails here, not in a user's project.
//
//   node scripts/check-a-la-carte.mjs [package-dir …]   (default: every packages/* entry)
//
// Needs `pnpm build` first, npm and the Temporal CLI (the orchestrator example talks to a
// dev server this script starts and stops).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const log = (line) => console.log(`[a-la-carte] ${line}`);

const requested = process.argv.slice(2);
const dirs = (
  requested.length > 0 ? requested : readdirSync(join(root, 'packages')).map((name) => join('packages', name))
).filter((dir) => existsSync(join(root, dir, 'package.json')));
const manifests = new Map(
  dirs.map((dir) => [dir, JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))]),
);
for (const [dir, manifest] of manifests) if (manifest.private) manifests.delete(dir);

/** The first ```ts block of a README: the example the package shows a newcomer. */
function readmeExample(dir) {
  const text = readFileSync(join(root, dir, 'README.md'), 'utf8');
  return /```ts\n([\s\S]*?)```/.exec(text)?.[1];
}

/** Bare package names an example imports (`@scope/name` or `name`), subpaths folded. */
function importedPackages(code) {
  const names = new Set();
  for (const match of code.matchAll(/\bfrom\s+'([^'.][^']*)'/g)) {
    const specifier = match[1];
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names];
}

/** What a package must not drag into a project that installs it alone. */
const mustNotInstall = {
  '@wharf/common': { only: ['@wharf/common'] },
  // The pure packages bring only @wharf/common (itself dependency-free) and, for the resolver, zod.
  '@wharf/channels': { only: ['@wharf/channels', '@wharf/common'] },
  '@wharf/context-resolver': { only: ['@wharf/context-resolver', '@wharf/common', 'zod'] },
  '@wharf/evidence': { never: ['better-sqlite3', 'hono', '@hono/node-server', '@wharf/output-store'] },
  // The S3 SDK and the PostgreSQL driver are optional peers: SQLite users never download them.
  '@wharf/output-store': { never: ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', 'pg'] },
  // Encryption and the codec server: node:crypto, zod and jose; no store, no worker, no HTTP framework.
  '@wharf/codec': { never: ['better-sqlite3', '@wharf/output-store', '@temporalio/worker', 'hono'] },
  '@wharf/stdio-limits': { never: ['better-sqlite3', 'hono', '@temporalio/worker'] },
  // The swarm core is pure: no Temporal, no Node-only package, no model provider.
  '@wharf/swarm': {
    never: [
      '@temporalio/workflow',
      '@temporalio/common',
      '@temporalio/worker',
      '@temporalio/client',
      'ai',
      'better-sqlite3',
    ],
  },
  // The workflows bring the workflow SDK and the pure packages, never the worker, client or AI SDK.
  '@wharf/workflows': {
    never: [
      '@temporalio/worker',
      '@temporalio/client',
      '@temporalio/activity',
      'ai',
      'better-sqlite3',
      '@wharf/runtime',
    ],
  },
  // The client never brings the worker (native core bridge), the runtime or the AI SDK.
  '@wharf/client': { never: ['@temporalio/worker', '@wharf/runtime', 'ai', 'better-sqlite3'] },
  // OpenTelemetry is an optional peer, loaded only when tracing is on: no trace, no download.
  '@wharf/runtime': {
    never: [
      '@temporalio/interceptors-opentelemetry',
      '@ai-sdk/otel',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-proto',
    ],
  },
  '@wharf/orchestrator': {
    never: [
      '@temporalio/interceptors-opentelemetry',
      '@ai-sdk/otel',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-proto',
    ],
  },
};

const work = await mkdtemp(join(tmpdir(), 'wharf-a-la-carte-'));
const tarballDir = join(work, 'tarballs');
await mkdir(tarballDir);
let server;
const failures = [];
try {
  // 1. Pack every workspace package a tarball may depend on.
  const tarballs = new Map();
  const versions = new Map();
  const packable = readdirSync(join(root, 'packages')).map((name) => join('packages', name));
  for (const dir of packable) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    await run('pnpm', ['pack', '--pack-destination', tarballDir], { cwd: join(root, dir) });
    const file = join(
      tarballDir,
      `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`,
    );
    if (!existsSync(file)) throw new Error(`pnpm pack did not produce ${file}`);
    tarballs.set(manifest.name, file);
    const { stdout } = await run('tar', ['-xzOf', file, 'package/package.json']);
    const packed = JSON.parse(stdout);
    for (const field of ['dependencies', 'peerDependencies']) {
      for (const [name, range] of Object.entries(packed[field] ?? {})) {
        if (range.includes('workspace:') || range.includes('catalog:')) {
          throw new Error(`${basename(file)}: ${field}.${name} is still "${range}" after packing`);
        }
        if (!tarballs.has(name) && !name.startsWith('@wharf/')) versions.set(name, range);
      }
    }
  }
  log(`packed ${tarballs.size} packages into ${tarballDir}`);

  // 2. A Temporal dev server for examples that need one.
  const needsTemporal = [...manifests.keys()].some((dir) => readmeExample(dir)?.includes('127.0.0.1:7233'));
  let address = '127.0.0.1:7233';
  if (needsTemporal) {
    const { startDevServer } = await import(join(root, 'packages/client/dist/index.js'));
    const { wharfSearchAttributeKinds } = await import(join(root, 'packages/workflows/dist/index.js'));
    server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    address = server.address;
    log(`Temporal dev server at ${address}`);
  }

  // 3. Each package alone in an empty project, its README example run there.
  const overrides = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  for (const [dir, manifest] of manifests) {
    const code = readmeExample(dir);
    if (code === undefined) {
      failures.push(`${manifest.name}: README has no \`\`\`ts example`);
      continue;
    }
    const project = join(work, basename(dir));
    await mkdir(project);
    const dependencies = { [manifest.name]: `file:${tarballs.get(manifest.name)}` };
    for (const name of importedPackages(code)) {
      if (name === manifest.name) continue;
      const spec = tarballs.has(name) ? `file:${tarballs.get(name)}` : versions.get(name);
      if (spec === undefined) {
        failures.push(`${manifest.name}: its example imports ${name}, which no Wharf package declares`);
        continue;
      }
      dependencies[name] = spec;
    }
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: `try-${basename(dir)}`, private: true, type: 'module', dependencies, overrides }, null, 2)}\n`,
    );
    const started = Date.now();
    try {
      // --prefer-offline: packages npm has cached are taken as they are, so the check costs no
      // registry round trips on a machine that has run it once.
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: project,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      });
    } catch (error) {
      failures.push(`${manifest.name}: npm install failed\n${error.stderr ?? error.message}`);
      continue;
    }
    const installSeconds = ((Date.now() - started) / 1000).toFixed(1);
    const { stdout: size } = await run('du', ['-sk', join(project, 'node_modules')]);
    const installed = readdirSync(join(project, 'node_modules'), { withFileTypes: true }).flatMap((entry) =>
      entry.name.startsWith('@')
        ? readdirSync(join(project, 'node_modules', entry.name)).map((name) => `${entry.name}/${name}`)
        : entry.name.startsWith('.')
          ? []
          : [entry.name],
    );
    const rule = mustNotInstall[manifest.name];
    const unwanted = installed.filter(
      (name) =>
        name !== manifest.name &&
        !(name in dependencies) &&
        (rule?.never?.includes(name) || (rule?.only !== undefined && !rule.only.includes(name))),
    );
    if (unwanted.length > 0) {
      failures.push(`${manifest.name}: installing it alone also installs ${unwanted.join(', ')}`);
      continue;
    }
    await writeFile(join(project, 'example.mts'), code.replaceAll('127.0.0.1:7233', address));
    try {
      const { stdout } = await run(process.execPath, ['example.mts'], {
        cwd: project,
        timeout: 180_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      if (manifest.name === '@wharf/orchestrator' && !stdout.includes("status: 'completed'")) {
        failures.push(`${manifest.name}: the example ran but its swarm did not complete:\n${stdout}`);
        continue;
      }
    } catch (error) {
      failures.push(`${manifest.name}: the README example failed\n${error.stderr || error.message}`);
      continue;
    }
    log(
      `${manifest.name}: installed alone in ${installSeconds} s (${installed.length} packages, ` +
        `${(Number.parseInt(size, 10) / 1024).toFixed(1)} MiB), README example ran`,
    );
  }
} finally {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`À la carte check failed (${failures.length}):`);
  for (const failure of failures) console.error(`  - ${failure}`);
  process.exit(1);
}
log(`${manifests.size} packages install and run on their own`);
