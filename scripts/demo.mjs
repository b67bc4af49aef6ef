#!/usr/bin/env node
// `pnpm demo`: installs the dependencies, builds, then runs the demo (apps/cli/dist/demo.js),
// saying what it does at each step and, while a step runs long (the first install and build
// take a minute or more), how long it has been running, so the first `./wharf demo` is never
// silent. Arguments go to the demo (`pnpm demo -- --keep`); its exit code is the demo's, or the
// failed step's. WHARF_DEMO_HEARTBEAT_MS sets how often a long step is reported (default 15 s).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const heartbeatMs = Number(process.env.WHARF_DEMO_HEARTBEAT_MS ?? 15_000);
const pnpm = process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm';
const say = (line) => process.stderr.write(`wharf demo: ${line}\n`);

/** Runs one step (its output shown as it comes), reporting its start, its length while long, and its end. */
function step(label, command, args) {
  const started = Date.now();
  const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
  say(`${label}…`);
  const beat = setInterval(() => say(`still ${label} (${seconds()})`), heartbeatMs);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.once('error', (error) => {
      clearInterval(beat);
      say(`${label} failed: ${error.message}`);
      resolve(1);
    });
    child.once('close', (code, signal) => {
      clearInterval(beat);
      if (code === 0) say(`${label}: done in ${seconds()}`);
      else say(`${label} failed (${signal ?? `exit ${code}`}) after ${seconds()}`);
      resolve(code ?? 1);
    });
  });
}

const install = await step('installing dependencies (pnpm install)', pnpm, [
  'install',
  '--frozen-lockfile',
  '--reporter=silent',
]);
if (install !== 0) process.exit(install);
const build = await step('building (pnpm build)', pnpm, ['--silent', 'build']);
if (build !== 0) process.exit(build);
const args = process.argv.slice(2).filter((arg) => arg !== '--');
const demo = spawn(
  process.execPath,
  [fileURLToPath(new URL('../apps/cli/dist/demo.js', import.meta.url)), ...args],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
// Ctrl-C reaches the demo too (same process group): this waits for its exit code. A SIGTERM
// sent to this process alone is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => demo.kill('SIGTERM'));
demo.once('close', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
