import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Real `wharf` processes (apps/cli/dist, so `pnpm build` first); none of these reaches a server.
const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

async function wharf(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cli, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('approve, input and run --wait-for-inputs refuse bad usage with exit 2', {
  timeout: 120_000,
}, () => {
  it('input needs values, and --json an object', async () => {
    const none = await wharf(['input', 'run-1']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('wharf input needs key=value pairs or --json');
    const list = await wharf(['input', 'run-1', '--json', '[1, 2]']);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('--json expects an object of input values');
    const broken = await wharf(['input', 'run-1', '--json', '{"a":']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('--json is not JSON');
    const pair = await wharf(['input', 'run-1', 'novalue']);
    expect(pair.code).toBe(2);
    expect(pair.stderr).toContain('expects key=value, got "novalue"');
  });

  it('run --wait-for-inputs takes a duration', async () => {
    const run = await wharf(['run', 'swarm.yaml', '--wait-for-inputs', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--wait-for-inputs must be a duration such as 500ms, 30s, 10m or 1h, got "soon"',
    );
  });

  it('rerun needs to be told what runs again, and refuses an unknown --from of --file before any server', async () => {
    const rerun = await wharf(['rerun', 'run-1']);
    expect(rerun.code).toBe(2);
    expect(rerun.stderr).toContain(
      'say what runs again: --from <task> (it and what depends on it), --input <key=value> (the tasks reading it) or --file <swarm.yaml> (the tasks changed in it)',
    );
    const dir = await mkdtemp(join(tmpdir(), 'wharf-rerun-usage-'));
    try {
      const file = join(dir, 'swarm.yaml');
      await writeFile(
        file,
        'name: s\ntasks:\n  fetch: { script: { content: echo } }\n  greet: { script: { content: echo } }\n',
      );
      // No server at 127.0.0.1:1: the task is checked against the file first.
      const unknown = await wharf([
        'rerun',
        'run-1',
        '--from',
        'gret',
        '--file',
        file,
        '--address',
        '127.0.0.1:1',
        '--data-dir',
        join(dir, 'data'),
      ]);
      expect(unknown.code, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain(
        'cannot re-run from "gret": the swarm has no such task; tasks: fetch, greet',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('approve needs a run and a task, and answers unreachable servers with exit 4', async () => {
    const missing = await wharf(['approve', 'run-1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'task'");
    const unreachable = await wharf(['approve', 'run-1', 'deploy', '--address', '127.0.0.1:1']);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toContain('no Temporal server at 127.0.0.1:1');
  });
});
