import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// turbo serves a test task from its cache when the task's hash is unchanged. These check, with
// `turbo run --dry=json` through scripts/turbo.mjs (what `pnpm test` runs), that the settings and
// tool versions the tests depend on are in that hash, and that an unrelated variable is not.
const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const task = '@wharf/common#test:unit';

let tools = '';
beforeAll(async () => {
  tools = await mkdtemp(join(tmpdir(), 'wharf-turbo-hash-'));
  for (const version of ['1.0.0', '2.0.0']) {
    const dir = join(tools, version);
    await execFileAsync('mkdir', ['-p', dir]);
    const script = join(dir, 'temporal');
    await writeFile(script, `#!/bin/sh\necho "temporal version ${version}"\n`);
    await chmod(script, 0o755);
  }
});
afterAll(async () => {
  await rm(tools, { recursive: true, force: true });
});

/** The environment of these runs: this one without turbo's own settings and with a fake `temporal`. */
function environment(
  temporalVersion: string,
  changes: Record<string, string | undefined>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('TURBO_') && name !== 'TEMPORAL_CLI_PATH') env[name] = value;
  env.PATH = `${join(tools, temporalVersion)}${delimiter}${process.env.PATH ?? ''}`;
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The hash turbo gives {@link task}. */
async function taskHash(temporalVersion: string, changes: Record<string, string | undefined> = {}) {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['scripts/turbo.mjs', 'run', 'test:unit', '--filter=@wharf/common', '--dry=json'],
    { cwd: root, env: environment(temporalVersion, changes), maxBuffer: 64 * 1024 * 1024 },
  );
  const dry = JSON.parse(stdout) as { tasks: { taskId: string; hash: string }[] };
  const found = dry.tasks.find((entry) => entry.taskId === task);
  if (found === undefined) throw new Error(`no ${task} in turbo's dry run`);
  return found.hash;
}

describe('test task hashes', () => {
  it('change with a setting the tests read and with a tool version, not with anything else', async () => {
    const unset = {
      TEMPORAL_ADDRESS: undefined,
      CI: undefined,
      AWS_REGION: undefined,
      WHARF_STORE: undefined,
    };
    const [base, again, temporalAddress, ci, awsRegion, wharfStore, unrelated, temporalCli] =
      await Promise.all([
        taskHash('1.0.0', unset),
        taskHash('1.0.0', unset),
        taskHash('1.0.0', { ...unset, TEMPORAL_ADDRESS: '127.0.0.1:7233' }),
        taskHash('1.0.0', { ...unset, CI: 'true' }),
        taskHash('1.0.0', { ...unset, AWS_REGION: 'eu-west-3' }),
        taskHash('1.0.0', { ...unset, WHARF_STORE: 'sqlite:///tmp/wharf.db' }),
        taskHash('1.0.0', { ...unset, SOME_UNRELATED_SETTING: 'x' }),
        taskHash('2.0.0', unset),
      ]);
    expect(again).toBe(base);
    expect(unrelated).toBe(base);
    const changed = { temporalAddress, ci, awsRegion, wharfStore, temporalCli };
    for (const [what, hash] of Object.entries(changed))
      expect({ what, hash }).not.toEqual({ what, hash: base });
  }, 120_000);

  it('takes the Temporal CLI version from the tool on PATH', async () => {
    const { stdout } = await execFileAsync(process.execPath, ['scripts/toolchain-fingerprint.mjs'], {
      cwd: root,
      env: environment('2.0.0', {}),
    });
    const printed = JSON.parse(stdout) as { versions: Record<string, string>; fingerprint: string };
    expect(printed.versions.temporal).toBe('temporal version 2.0.0');
    expect(printed.versions.node).toBe(process.version);
    expect(printed.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  }, 60_000);
});
