import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { type DevServer, startDevServer } from '@wharf/orchestrator/dev-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWith, runWharf, spawnWharf } from './wharf-cli.js';

// What `wharf run` prints, read from the real command (apps/cli/dist: `pnpm build` first), on a
// Temporal dev server of its own: no other test's `wharf` process polls its task queue.
describe('what wharf run prints', () => {
  let dir: string;
  let server: DevServer;
  let address: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-run-output-'));
    server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    address = server.address;
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a failed swarm itself, without the worker logging the failure too', async () => {
    await writeFile(
      join(dir, 'failing.yaml'),
      [
        'name: failing',
        'tasks:',
        '  fine: { script: { content: echo fine } }',
        '  broken: { script: { content: \'echo "cannot connect" >&2; exit 4\' } }',
      ].join('\n'),
    );
    const run = await runWharf(['run', 'failing.yaml', '--address', address, '--data-dir', '.wharf'], dir, {
      env: envWith({ WHARF_UI_URL: undefined }),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/broken: failed \(exit 4 · cannot connect\)/);
    expect(run.stderr).toContain('wharf: swarm failing failed: 1 task(s) did not complete');
    // No worker log line (`[WARN] Workflow failed {…}`) beside the command's own report.
    expect(run.stderr).not.toContain('Workflow failed');
    expect(run.stderr).not.toContain('[WARN]');
    // A server the command did not start does not say where its Web UI is: the command says how to tell it.
    expect(run.stderr).toContain(
      `wharf: no Web UI link: the Temporal server at ${address} does not say where its Web UI is; give it with --ui-url <url> (or WHARF_UI_URL)`,
    );
    expect(run.stdout).not.toContain('Web UI:');
  });

  it('links the run in the Web UI that --ui-url or WHARF_UI_URL names, as its help says', async () => {
    await writeFile(
      join(dir, 'hello.yaml'),
      'name: hello\ntasks:\n  greet: { script: { content: echo hi } }\n',
    );
    const args = ['run', 'hello.yaml', '--address', address, '--data-dir', '.wharf'];
    // Three commands, each costing seconds before it does anything: side by side.
    const [helped, run, refused] = await Promise.all([
      runWharf(['run', '--help'], dir),
      runWharf(args, dir, { env: envWith({ WHARF_UI_URL: 'http://ui.example:8080/' }) }),
      // The option wins over the variable; a URL that is not http(s) is a usage error naming it.
      runWharf([...args, '--ui-url', 'ftp://ui.example'], dir, {
        env: envWith({ WHARF_UI_URL: 'http://ui.example:8080' }),
      }),
    ]);
    const help = helped.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      "prints the result, the out ids and the run's Web UI link (of a server it or `wharf dev` started, else of --ui-url)",
    );
    expect(help).toContain(
      "--ui-url <url> the Web UI of --address's server, for the run's link (env: WHARF_UI_URL)",
    );

    expect(run.code, run.stderr).toBe(0);
    const started = /wharf: started (\S+) — (\S+)/.exec(run.stderr);
    const [, workflowId, link] = started ?? [];
    expect(link).toMatch(
      new RegExp(
        `^http://ui\\.example:8080/namespaces/default/workflows/${workflowId}/[0-9a-f-]{36}/history$`,
      ),
    );
    expect(run.stdout).toContain(`Web UI: ${link}`);
    expect(run.stderr).not.toContain('no Web UI link');

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--ui-url must be an http(s) URL such as http://127.0.0.1:8233, got "ftp://ui.example".',
    );
  });

  it("--follow shows the gate's own command, and the approved task's lines to the end", async () => {
    await writeFile(
      join(dir, 'gated.yaml'),
      [
        'name: gated',
        'tasks:',
        '  build: { script: { content: echo built } }',
        '  deploy:',
        '    depends_on: [build]',
        "    approval: { prompt: 'Ship it?' }",
        '    script: { content: echo deployed }',
      ].join('\n'),
    );
    const args = ['run', 'gated.yaml', '--follow', '--address', address, '--data-dir', '.wharf'];
    const run = spawnWharf(args, dir);
    const workflowId = (await run.waitFor(/wharf: started (\S+)/))[1] as string;
    const [gate] = await run.waitFor(/^deploy: waiting awaits approval: Ship it\? \(.*\)$/m, 'stdout');
    expect(gate).toBe(
      `deploy: waiting awaits approval: Ship it? (wharf approve ${workflowId} deploy --address ${address})`,
    );
    const approved = await runWharf(
      ['approve', workflowId, 'deploy', '--by', 'ana', '--address', address],
      dir,
    );
    expect(approved.stdout).toContain(`${workflowId}: deploy approved`);
    expect((await run.exited).code).toBe(0);
    const { stdout, stderr } = run.output();
    // After the approval the task runs and ends within a moment: its end is shown all the same.
    const after = stdout.slice(stdout.indexOf(gate) + gate.length);
    expect(after).toMatch(/^deploy: done 9 B out_\S+$/m);
    expect(after.indexOf('deploy: done')).toBeLessThan(after.indexOf('Swarm gated: completed'));
    expect(`${stdout}${stderr}`).not.toMatch(/<task>|<run>/);
  });
});
