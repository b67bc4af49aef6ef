import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWith, runWharf } from './wharf-cli.js';

// A data directory's own dev server down (the fault): `wharf cancel` / `terminate`
// (apps/cli/dist: `pnpm build` first) start it again, act there and stop it. In the fault tier,
// which runs alone: with no server named, the CLI looks at 127.0.0.1:7233 first, which no other
// test's server may hold.

describe('wharf cancel and terminate with the data directory’s dev server stopped', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-data-dir-server-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('start it again, act there and stop it', async () => {
    // With nothing named, the CLI looks for a server at 127.0.0.1:7233 first: nothing may hold it.
    expect(await portFree(7233), 'port 7233 is in use: this journey needs it free').toBe(true);
    const noCluster = envWith(
      Object.fromEntries(
        Object.keys(process.env)
          .filter((name) => name.startsWith('TEMPORAL_'))
          .map((name) => [name, undefined]),
      ),
    );
    // Two runs left waiting in own/temporal.db by a dev server that has stopped since (as a
    // `wharf run` that started its own leaves them at Ctrl-C).
    const own = join(dir, 'own');
    await mkdir(own, { recursive: true });
    const dbFilename = join(own, 'temporal.db');
    const started = async () => {
      const devServer = await startDevServer({
        ui: false,
        dbFilename,
        searchAttributes: wharfSearchAttributeKinds,
      });
      const ownConnection = await Connection.connect({ address: devServer.address });
      return { devServer, ownConnection, client: new Client({ connection: ownConnection }) };
    };
    const first = await started();
    const wharf = new WharfClient({ connection: first.ownConnection, taskQueue: 'nobody-polls-this' });
    const cancelMe = (await wharf.startSwarm('name: waiting\ntasks:\n  a: { script: { content: echo } }\n'))
      .workflowId;
    const endMe = (await wharf.startSwarm('name: waiting\ntasks:\n  a: { script: { content: echo } }\n'))
      .workflowId;
    await first.ownConnection.close();
    await first.devServer.stop();

    const cancelled = await runWharf(
      ['cancel', cancelMe, '--data-dir', 'own', '--wait', '1s', '--by', 'ana'],
      dir,
      {
        env: noCluster,
      },
    );
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stderr).toContain('starting a local Temporal dev server');
    expect(cancelled.stdout).toContain(
      `cancellation of ${cancelMe} requested; it still runs: it ends once a worker runs it (\`wharf resume ${cancelMe} --data-dir own\` gives it one`,
    );
    expect(cancelled.stderr).toContain('the dev server of own was started again for this and stops with it');
    const terminated = await runWharf(['terminate', endMe, '--data-dir', 'own', '--json'], dir, {
      env: noCluster,
    });
    expect(terminated.code, terminated.stderr).toBe(0);
    expect(JSON.parse(terminated.stdout)).toEqual({
      workflowId: endMe,
      requested: 'terminate',
      status: 'terminated',
      ended: true,
      restartedServer: expect.stringMatching(/:\d+$/),
    });
    // The server stopped with each command; what they asked is kept in own/temporal.db.
    expect(await portFree(7233)).toBe(true);
    const again = await started();
    try {
      const history = await again.client.workflow.getHandle(cancelMe).fetchHistory();
      expect(history.events?.some((event) => event.workflowExecutionCancelRequestedEventAttributes)).toBe(
        true,
      );
      expect((await again.client.workflow.getHandle(endMe).describe()).status.name).toBe('TERMINATED');
    } finally {
      await again.ownConnection.close();
      await again.devServer.stop();
    }
    // A data directory that never held a dev server: nothing to start, and the hint says what to run.
    const nowhere = await runWharf(['cancel', cancelMe, '--data-dir', 'empty'], dir, { env: noCluster });
    expect(nowhere.code).toBe(4);
    expect(nowhere.stderr).toContain(`wharf resume ${cancelMe} --data-dir empty`);
  });
});

/** True when nothing listens on the port (a dev server a command starts would take it). */
async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
