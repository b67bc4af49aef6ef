#!/usr/bin/env node
// Runs turbo with the toolchain's fingerprint in WHARF_TOOLCHAIN (a `globalEnv` variable of
// turbo.json: a new Node, Temporal CLI, PostgreSQL, versitygw, … is a cache miss) and with
// telemetry off. Every root script that runs turbo goes through here, so `pnpm build` and
// `pnpm test` hash alike: `pnpm turbo run test:unit --filter=@wharf/cli`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { toolchainFingerprint, toolchainVersions } from './toolchain-fingerprint.mjs';

/** The environment turbo runs in: this one, plus the fingerprint and telemetry off. */
export async function turboEnvironment(env = process.env) {
  const versions = await toolchainVersions(env);
  return {
    ...env,
    WHARF_TOOLCHAIN: toolchainFingerprint(versions),
    TURBO_TELEMETRY_DISABLED: '1',
    DO_NOT_TRACK: '1',
  };
}

/** Runs `turbo <args>` in `env`; resolves to its exit status. */
export function runTurbo(args, env) {
  const bin = createRequire(import.meta.url).resolve('turbo/bin/turbo');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: 'inherit', env });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(await runTurbo(process.argv.slice(2), await turboEnvironment()));
}
