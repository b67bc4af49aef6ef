// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text (CSS upper case included), which is what a person reads.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { FsArtifactStore } from '@wharf/evidence';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DevServer, ensureTemporalCli, startDevServer } from '@wharf/orchestrator/dev-server';
import { createWharfWorker } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wharfBundle } from './swarm-env.js';
import { taskQueueFor } from './temporal-env.js';

// What a person monitoring swarms sees in the Temporal Web UI, read from a real headless
// Chromium against a dev server started here with its UI on.
const execFileAsync = promisify(execFile);
const chromiumPath = process.env.WHARF_CHROMIUM_PATH ?? '/usr/bin/chromium';
const swarmName = `webui-${Date.now().toString(36)}`;

const failing = `
name: ${swarmName}
version: 2.1.0
tasks:
  inventory: { script: { content: echo three files } }
  licences:
    description: every package ships a LICENSE file
    script: { content: 'echo "missing LICENSE in apps/cli" >&2; exit 1' }
  summary: { depends_on: [inventory], script: { content: echo all counted } }
`;
const optedOut = `${failing.replace(`name: ${swarmName}`, `name: ${swarmName}-lenient`)}on_failure: complete\n`;
const gated = `
name: ${swarmName}-gated
tasks:
  build: { script: { content: echo built } }
  deploy: { depends_on: [build], approval: { prompt: Ship it? }, script: { content: echo shipped } }
`;

describe('the Temporal Web UI shows a finished swarm, failed or not, and a waiting one, with every worker stopped', () => {
  let server: DevServer;
  let dir: string;
  let store: SqliteOutputStore;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let wharf: WharfClient;
  let browser: BrowserContext;
  let stopWorker: (() => void) | undefined;
  let workerRun: Promise<void> | undefined;
  const runs: Record<'failed' | 'lenient' | 'gated', { workflowId: string; runId: string }> = {
    failed: { workflowId: '', runId: '' },
    lenient: { workflowId: '', runId: '' },
    gated: { workflowId: '', runId: '' },
  };

  beforeAll(async () => {
    if (!existsSync(chromiumPath))
      throw new Error(
        `no Chromium at ${chromiumPath}: source .ci/toolchain.sh and run wharf_ensure_chromium`,
      );
    server = await startDevServer({ ui: true, searchAttributes: wharfSearchAttributeKinds });
    dir = await mkdtemp(join(tmpdir(), 'wharf-webui-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    connection = await Connection.connect({ address: server.address });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    const taskQueue = taskQueueFor('web-ui');
    wharf = new WharfClient({ connection, taskQueue });
    const worker = await createWharfWorker({
      connection: nativeConnection,
      taskQueue,
      store,
      artifacts: new FsArtifactStore({ root: join(dir, 'artifacts') }),
      workDir: join(dir, 'work'),
      workflowBundle: await wharfBundle(),
    });
    stopWorker = () => worker.shutdown();
    workerRun = worker.run();
    for (const [key, text] of [
      ['failed', failing],
      ['lenient', optedOut],
    ] as const) {
      const { workflowId, firstExecutionRunId } = await wharf.startSwarm(text);
      runs[key] = { workflowId, runId: firstExecutionRunId };
      const result = await wharf.result(workflowId);
      // Both ways, the caller gets the whole SwarmResult.
      expect(result).toMatchObject({ swarm: expect.stringContaining(swarmName), status: 'failed' });
      expect(result.tasks.find((task) => task.task === 'licences')?.reason).toContain('missing LICENSE');
    }
    const started = await wharf.startSwarm(gated);
    runs.gated = { workflowId: started.workflowId, runId: started.firstExecutionRunId };
    for (let attempt = 0; (await wharf.pendingApprovals(started.workflowId)).length === 0; attempt++) {
      if (attempt > 600) throw new Error('the gate never opened');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Everything below reads the server with no worker running: no query can be answered.
    stopWorker();
    await workerRun;
    stopWorker = undefined;
    browser = await chromium.launchPersistentContext(join(dir, 'chromium-profile'), {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    stopWorker?.();
    await workerRun;
    await connection?.close();
    await nativeConnection?.close();
    await store?.close();
    await server?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('fails the workflow with WharfSwarmFailed carrying the result, unless on_failure: complete', async () => {
    const failed = await wharf.client.workflow.getHandle(runs.failed.workflowId).describe();
    expect(failed.status.name).toBe('FAILED');
    const lenient = await wharf.client.workflow.getHandle(runs.lenient.workflowId).describe();
    expect(lenient.status.name).toBe('COMPLETED');
    const error = await wharf.client.workflow
      .getHandle(runs.failed.workflowId)
      .result()
      .catch((caught: unknown) => caught);
    const cause = (error as { cause?: { type?: string; message?: string; nonRetryable?: boolean } }).cause;
    expect(cause).toMatchObject({
      type: 'WharfSwarmFailed',
      nonRetryable: true,
      message: `swarm ${swarmName} failed: licences failed (exit 1 · missing LICENSE in apps/cli)`,
    });
  });

  it('finds the failed swarm with the temporal CLI by WharfSwarm and by WharfStatus', async () => {
    const cli = (await ensureTemporalCli()).path;
    const list = async (query: string) => {
      const { stdout } = await execFileAsync(
        cli,
        ['workflow', 'list', '--address', server.address, '--query', query, '--output', 'json'],
        { timeout: 60_000 },
      );
      return JSON.parse(stdout || '[]') as { execution: { workflowId: string }; status: string }[];
    };
    const bySwarm = await list(`WharfSwarm="${swarmName}"`);
    expect(bySwarm.map((row) => [row.execution.workflowId, row.status])).toEqual([
      [runs.failed.workflowId, 'WORKFLOW_EXECUTION_STATUS_FAILED'],
    ]);
    const failedOnes = (await list('WharfStatus="failed"')).map((row) => row.execution.workflowId);
    expect(failedOnes).toEqual(expect.arrayContaining([runs.failed.workflowId, runs.lenient.workflowId]));
    const failedWorkflows = (await list('ExecutionStatus="Failed"')).map((row) => row.execution.workflowId);
    expect(failedWorkflows).toEqual([runs.failed.workflowId]);
  });

  it('the workflow list counts and shows the swarm FAILED, with its WharfSwarm and WharfStatus columns', async () => {
    const page = await browser.newPage();
    // The columns a person adds once with "Configure Columns" (kept in the browser's storage).
    const columns = [
      'Status',
      'Workflow ID',
      'WharfSwarm',
      'WharfStatus',
      'WharfPendingGates',
      'Start',
      'End',
    ].map((label) => ({
      label,
      pinned: false,
    }));
    await page.addInitScript({
      content: `localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(JSON.stringify({ default: columns }))});`,
    });
    // This server holds only this file's three runs; the list header counts them by status.
    await page.goto(`${server.uiUrl}/namespaces/default/workflows`);
    await page.locator('tr', { hasText: runs.lenient.workflowId }).waitFor({ timeout: 60_000 });
    await expect
      .poll(async () => page.locator('main').innerText(), { timeout: 30_000 })
      .toMatch(/\b1 FAILED\b/);
    const query = encodeURIComponent(
      `WharfSwarm="${swarmName}" OR WharfSwarm="${swarmName}-lenient" OR WharfSwarm="${swarmName}-gated"`,
    );
    await page.goto(`${server.uiUrl}/namespaces/default/workflows?query=${query}`);
    const failedRow = page.locator('tr', { hasText: runs.failed.workflowId });
    await failedRow.waitFor({ timeout: 60_000 });
    const failedText = await failedRow.innerText();
    // The status badge renders upper case; WharfStatus shows as stored.
    expect(failedText).toContain('FAILED');
    expect(failedText).toContain(`\t${swarmName}\t`);
    expect(failedText).toContain('\tfailed\t');
    const lenientText = await page.locator('tr', { hasText: runs.lenient.workflowId }).innerText();
    expect(lenientText).toContain('COMPLETED');
    expect(lenientText).toContain('\tfailed\t'); // WharfStatus still says what happened
    // A swarm waiting for a person is RUNNING to Temporal, and says so: waiting, 1 gate.
    const gatedText = await page.locator('tr', { hasText: runs.gated.workflowId }).innerText();
    expect(gatedText).toContain('RUNNING');
    expect(gatedText).toContain('\twaiting\t1\t');
    expect(failedText).toContain('\tfailed\t0\t');
    await page.close();
  });

  it('the run page reads on its own: the final table in the memo and the last event, the summary and how to read on', async () => {
    const page = await browser.newPage();
    const { workflowId, runId } = runs.failed;
    const base = `${server.uiUrl}/namespaces/default/workflows/${workflowId}/${runId}`;
    const failed = await wharf.result(workflowId);
    const outIds = (task: string) => failed.outputs[task] ?? [];

    // The memo: the final table, failures first with their reasons, every task's out ids.
    await page.goto(`${base}/memo`);
    await page.getByText('report', { exact: false }).first().waitFor({ timeout: 60_000 });
    const memo = await page.locator('main').innerText();
    const failure = `✘ licences failed — exit 1 · missing LICENSE in apps/cli → ${outIds('licences')[0]}`;
    expect(memo).toContain(failure);
    expect(memo).toContain(`✔ inventory done → ${outIds('inventory')[0]}`);
    expect(memo).toContain(`✔ summary done → ${outIds('summary')[0]}`);
    expect(memo.indexOf(failure)).toBeLessThan(memo.indexOf('inventory done'));
    expect(memo).toContain('read an output: wharf outputs show <out id>');
    expect(memo).toContain(`whole result: wharf status ${workflowId}`);

    // The history: its last command carries the same report as its summary.
    await page.goto(`${base}/history`);
    const last = page.locator('tr', { hasText: 'Final report' }).first();
    await last.waitFor({ timeout: 60_000 });
    await last.click();
    await expect.poll(async () => page.locator('main').innerText(), { timeout: 30_000 }).toContain(failure);
    expect(await page.locator('main').innerText()).toContain('FAILED'); // the status badge

    // User Metadata: the static summary, and where to look once the run has ended.
    await page.goto(`${base}/user-metadata`);
    const summary = `Swarm ${swarmName} v2.1.0 · 3 tasks`;
    expect(await framesText(page, summary)).toContain(summary);
    expect(await framesText(page, 'Once the run has ended')).toContain(
      `wharf rerun ${workflowId} --from <task>`,
    );
    await page.close();
  });
});

/** The Web UI renders markdown metadata in iframes: the text of the first frame holding `needle`. */
async function framesText(page: Page, needle: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const frame of page.frames()) {
      const text = await frame
        .locator('body')
        .innerText({ timeout: 1_000 })
        .catch(() => '');
      if (text.includes(needle)) return text;
    }
    if (Date.now() > deadline) throw new Error(`no frame shows "${needle}"`);
    await page.waitForTimeout(250);
  }
}
