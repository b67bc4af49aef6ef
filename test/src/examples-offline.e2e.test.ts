import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { SwarmResult } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, type ExpectStatic, inject, it } from 'vitest';
import { envWithoutModels, runWharf, startWharf, type WharfCliRun } from './wharf-cli.js';

// Every swarm in examples/ runs through the real `wharf` command with no provider key: the
// offline `echo` model (and, for the dependency review, the scripted reviewer it ships with).
const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = (await readdir(join(root, 'examples'))).filter((file) => file.endsWith('.yaml')).sort();

// The examples run side by side: each has its own data directory, and mostly waits on Temporal.
describe.concurrent('every example runs offline through the wharf command', () => {
  let address: string;
  let dirs: string[];
  const env = envWithoutModels();
  beforeAll(() => {
    address = inject('temporalAddress');
    dirs = [];
  });
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /**
   * `wharf run <file> --json` from the repository root (the examples read it), approving every
   * gate it reaches with `wharf approve`, as a person at a second terminal would: `wharf run`
   * names the gated tasks when it starts; `wharf status` then shows when each one waits.
   */
  async function runExample(
    expect: ExpectStatic,
    file: string,
    models: string[],
  ): Promise<{
    run: WharfCliRun;
    result: SwarmResult & { workflowId: string };
    dataDir: string;
    approved: string[];
  }> {
    const dataDir = await mkdtemp(join(tmpdir(), 'wharf-example-'));
    dirs.push(dataDir);
    const cli = ['--address', address, '--data-dir', dataDir];
    const running = startWharf(['run', `examples/${file}`, '--json', ...models, ...cli], root, {
      env,
      timeoutMs: 240_000,
    });
    let finished = false;
    void running.done.then(() => {
      finished = true;
    });
    const approved: string[] = [];
    // `wharf run` names a gate when it opens (never one that is skipped): each is answered.
    const gated = () =>
      [...running.stderr().matchAll(/^wharf: (\S+) waits for approval; answer with/gm)].map(
        (match) => match[1] as string,
      );
    while (!finished) {
      await Promise.race([sleep(500), running.done]);
      const workflowId = /wharf: started (\S+)/.exec(running.stderr())?.[1];
      if (finished || workflowId === undefined) continue;
      for (const gate of gated()) {
        if (approved.includes(gate)) continue;
        const answer = await runWharf(
          ['approve', workflowId, gate, '--comment', 'checked offline', '--address', address],
          root,
          { env },
        );
        expect(answer.code, answer.stderr).toBe(0);
        approved.push(gate);
      }
    }
    const run = await running.done;
    expect(run.code, run.stderr).toBe(0);
    return { run, result: JSON.parse(run.stdout) as SwarmResult & { workflowId: string }, dataDir, approved };
  }

  const task = (result: SwarmResult, name: string) => result.tasks.find((entry) => entry.task === name);
  const body = async (outId: string, dataDir: string) =>
    (await runWharf(['outputs', 'show', outId, '--data-dir', dataDir], root, { env })).stdout;

  it('finds the examples', ({ expect }) => {
    expect(examples).toEqual(
      expect.arrayContaining(['dependency-review.yaml', 'release-train.yaml', 'repo-health.yaml']),
    );
  });

  it.for(examples)('%s exits 0 with --model echo and no key', async (file, { expect }) => {
    const { result, dataDir, approved } = await runExample(expect, file, ['--model', 'echo']);
    expect(result.status).toBe('completed');
    if (file === 'repo-health.yaml') {
      // The supervisor's echo shows what it was sent: every worker's marker, each mounted.
      const answer = result.supervisor?.answer ?? '';
      expect(answer).toMatch(
        /^Echo model \(offline\): I was sent 2 messages, .* and 4 tools: emit, get_tool_output, get_worker_evidence, read_input\.$/m,
      );
      expect(answer).toContain('Task: Question: Is this repository healthy enough to release?');
      expect(answer).toMatch(
        /^Evidence markers: 8 \(inventory, dependencies, line_counts\.0, .*\); evidence mounted for 8, /m,
      );
      expect(result.supervisor?.usage?.calls).toBe(1);
    }
    if (file === 'release-train.yaml') {
      expect(approved).toEqual(['publish']);
      expect(task(result, 'publish')?.status).toBe('done');
      expect(task(result, 'hold')?.status).toBe('skipped');
    }
    if (file === 'nested-release.yaml') {
      // The child swarm's headline, read by a later task of the parent as †data.notes.preview.
      expect(task(result, 'notes')?.status).toBe('done');
      const announce = await body(task(result, 'announce')?.outIds[0] ?? '', dataDir);
      expect(announce.trim()).toBe(
        'announced: release notes for operators: 2 changes (2.4.0: faster map loops) [ok, 3 outputs]',
      );
    }
    if (file === 'dependency-review.yaml') {
      // One echo per reviewer, ending in one step; none says SAFE, so the upgrade is held.
      const review = task(result, 'review');
      expect(review).toMatchObject({ status: 'done', instances: { done: 2, total: 2 } });
      expect(review?.usage?.calls).toBe(2);
      const notes = await Promise.all((review?.outIds ?? []).map((outId) => body(outId, dataDir)));
      expect(notes.join('\n')).toContain('Your item (index 0 of 2): yaml');
      expect(notes.join('\n')).toContain('Your item (index 1 of 2): @temporalio/client');
      expect(notes[0]).toMatch(
        /and 6 tools: emit, get_tool_output, get_worker_evidence, read_file, read_input, shell\./,
      );
      expect(task(result, 'upgrade')?.status).toBe('skipped');
      expect(task(result, 'hold')?.status).toBe('done');
    }
  });

  it('dependency-review runs its reviewers through their tools with the scripted model it ships', async ({
    expect,
  }) => {
    const { result, dataDir, approved } = await runExample(expect, 'dependency-review.yaml', [
      '--model',
      'reviewer=scripted:examples/models/reviewer.yaml',
    ]);
    expect(result.status).toBe('completed');
    const review = task(result, 'review');
    // Four model calls per review: shell, read_file, emit, the verdict.
    expect(review?.usage?.calls).toBe(8);
    const notes = await Promise.all((review?.outIds ?? []).map((outId) => body(outId, dataDir)));
    expect(notes).toHaveLength(2);
    for (const note of notes) expect(note).toContain('VERDICT: SAFE');
    expect(approved).toEqual(['upgrade']);
    expect(task(result, 'upgrade')?.status).toBe('done');
    expect(task(result, 'hold')?.status).toBe('skipped');
  });
});
