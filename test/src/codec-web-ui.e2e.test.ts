// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text, which is what a person reads.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import type { CodecServer } from '@wharf/codec/server';
import { FsArtifactStore } from '@wharf/evidence';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import {
  type DevServer,
  ensureTemporalCli,
  getFreePort,
  startDevServer,
} from '@wharf/orchestrator/dev-server';
import {
  createModelRegistry,
  createWharfDataConverter,
  parseKeyRing,
  startDataPlaneCodecServer,
} from '@wharf/orchestrator/node';
import { createWharfWorker } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wharfBundle } from './swarm-env.js';
import { taskQueueFor } from './temporal-env.js';

// Payload encryption seen from outside: the raw history the Temporal server keeps, the Web UI in
// a real headless Chromium against a dev server whose UI decodes through Wharf's codec server,
// the same UI without the codec, and `temporal workflow show --codec-endpoint`.
const execFileAsync = promisify(execFile);
const chromiumPath = process.env.WHARF_CHROMIUM_PATH ?? '/usr/bin/chromium';
const id = Date.now().toString(36);
const secrets = {
  input: `input-secret-${id}`,
  script: `script-secret-${id}`,
  stderr: `stderr-secret-${id}`,
  prompt: `prompt-secret-${id}`,
};
const keyRing = parseKeyRing(`k1:${randomBytes(32).toString('base64')}`);

const planted = `
name: codec-${id}
agents:
  writer: { model: echo }
tasks:
  greet:
    inputs: { note: †input.note }
    script: { content: 'echo "${secrets.script} read $WHARF_INPUTS"' }
  ask:
    agent: writer
    prompt: Summarise ${secrets.prompt} in one line.
  broken:
    script: { content: 'echo "${secrets.stderr}" >&2; exit 3' }
on_failure: complete
`;

// Several MB per script; the workflow input itself over the External Storage threshold.
const bulkLines = 400_000;
const bulk = `
name: codec-bulk-${id}
tasks:
  numbers:
    script: { content: 'seq 1 ${bulkLines}' }
    output: †data.numbers
  letters:
    script: { content: 'seq 1 ${bulkLines} | tr 0-9 a-j' }
    output: †data.letters
on_failure: complete
`;
const bulkInput = `BULK-INPUT-START${'y'.repeat(300 * 1024)}BULK-INPUT-END`;

function expectedSeq(letters: boolean): string {
  const lines: string[] = [];
  for (let n = 1; n <= bulkLines; n++) lines.push(String(n));
  const text = `${lines.join('\n')}\n`;
  return letters ? text.replace(/[0-9]/g, (digit) => String.fromCharCode(97 + Number(digit))) : text;
}

describe('payload encryption: ciphertext on the Temporal server, plaintext through the codec server', () => {
  let server: DevServer;
  let codec: CodecServer;
  let dir: string;
  let store: SqliteOutputStore;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let wharf: WharfClient;
  let browser: BrowserContext;
  let uiOrigin: string;
  const runs: Record<'planted' | 'bulk', { workflowId: string; runId: string }> = {
    planted: { workflowId: '', runId: '' },
    bulk: { workflowId: '', runId: '' },
  };
  let bulkOutputs: Record<string, string[]> = {};

  beforeAll(async () => {
    if (!existsSync(chromiumPath))
      throw new Error(
        `no Chromium at ${chromiumPath}: source .ci/toolchain.sh and run wharf_ensure_chromium`,
      );
    dir = await mkdtemp(join(tmpdir(), 'wharf-codec-ui-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    const uiPort = await getFreePort('127.0.0.1');
    uiOrigin = `http://127.0.0.1:${uiPort}`;
    codec = await startDataPlaneCodecServer({ store, keyRing, allowedOrigins: [uiOrigin] });
    server = await startDevServer({
      ui: true,
      uiPort,
      uiCodecEndpoint: codec.url,
      searchAttributes: wharfSearchAttributeKinds,
    });
    connection = await Connection.connect({ address: server.address });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    const taskQueue = taskQueueFor('codec-ui');
    const dataConverter = createWharfDataConverter({ store, keyRing });
    wharf = new WharfClient({ connection, taskQueue, dataConverter });
    const worker = await createWharfWorker({
      connection: nativeConnection,
      taskQueue,
      store,
      artifacts: new FsArtifactStore({ root: join(dir, 'artifacts'), spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      workflowBundle: await wharfBundle(),
      dataConverter,
      models: createModelRegistry({ env: {} }),
    });
    await worker.runUntil(async () => {
      const started = await wharf.startSwarm(planted, { note: secrets.input });
      runs.planted = { workflowId: started.workflowId, runId: started.firstExecutionRunId };
      const result = await wharf.result(started.workflowId);
      expect(result.tasks.map((task) => [task.task, task.status])).toEqual([
        ['greet', 'done'],
        ['ask', 'done'],
        ['broken', 'failed'],
      ]);
      expect(result.tasks.find((task) => task.task === 'broken')?.reason).toContain(secrets.stderr);
      const big = await wharf.startSwarm(bulk, { blob: bulkInput });
      runs.bulk = { workflowId: big.workflowId, runId: big.firstExecutionRunId };
      const bulkResult = await wharf.result(big.workflowId);
      expect(bulkResult.status).toBe('completed');
      bulkOutputs = bulkResult.outputs;
    });
    browser = await chromium.launchPersistentContext(join(dir, 'chromium-profile'), {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await connection?.close();
    await nativeConnection?.close();
    await codec?.close();
    await store?.close();
    await server?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Every execution of this file's server (the swarms and their agent tasks) with its raw history. */
  async function rawHistories(): Promise<{ workflowId: string; bytes: Buffer; events: number }[]> {
    const service = connection.workflowService;
    const listed = await service.listWorkflowExecutions({ namespace: 'default', pageSize: 100 });
    return Promise.all(
      listed.executions.map(async ({ execution }) => {
        const response = await service.getWorkflowExecutionHistory({
          namespace: 'default',
          execution: execution ?? null,
        });
        const history = response.history;
        return {
          workflowId: execution?.workflowId ?? '',
          bytes: Buffer.from(proto.temporal.api.history.v1.History.encode(history ?? {}).finish()),
          events: history?.events?.length ?? 0,
        };
      }),
    );
  }

  it('the raw history holds no planted secret: input, script body, stderr, prompt, report; the memo is ciphertext, search attributes readable', async () => {
    const histories = await rawHistories();
    // Both swarms and the agent task's child workflow.
    expect(histories.map((history) => history.workflowId)).toEqual(
      expect.arrayContaining([runs.planted.workflowId, runs.bulk.workflowId]),
    );
    expect(histories.length).toBeGreaterThanOrEqual(3);
    for (const { workflowId, bytes, events } of histories) {
      expect(events).toBeGreaterThan(2);
      expect(bytes.includes('binary/encrypted'), workflowId).toBe(true);
      for (const [name, secret] of Object.entries(secrets))
        expect(bytes.includes(secret), `${name} secret in ${workflowId}`).toBe(false);
      expect(bytes.includes('BULK-INPUT-START'), workflowId).toBe(false);
    }
    // The bulk input went to the data plane as ciphertext: nothing there reads as the input.
    const stored = await store.list({ labels: { kind: 'temporal-payload' }, limit: 100 });
    expect(stored.records.length).toBeGreaterThan(0);
    for (const record of stored.records) {
      const { body } = await store.get({ outId: record.outId });
      expect(Buffer.from(body).includes('BULK-INPUT-START')).toBe(false);
    }

    const { workflowExecutionInfo } = await connection.workflowService.describeWorkflowExecution({
      namespace: 'default',
      execution: { workflowId: runs.planted.workflowId, runId: runs.planted.runId },
    });
    const memo = workflowExecutionInfo?.memo?.fields ?? {};
    expect(Object.keys(memo)).toEqual(expect.arrayContaining(['report']));
    for (const payload of Object.values(memo)) {
      expect(Buffer.from(payload.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
      expect(Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString()).toBe('k1');
    }
    const attributes = workflowExecutionInfo?.searchAttributes?.indexedFields ?? {};
    expect(Buffer.from(attributes.WharfSwarm?.data ?? []).toString()).toBe(JSON.stringify(`codec-${id}`));
    const attributeText = JSON.stringify(
      Object.values(attributes).map((payload) => Buffer.from(payload.data ?? []).toString()),
    );
    for (const secret of Object.values(secrets)) expect(attributeText).not.toContain(secret);
  });

  it('the Web UI shows decrypted activity inputs and results, the report in the memo, and a decoded External Storage payload', async () => {
    const page = await browser.newPage();
    const planted = historyUrl(runs.planted);
    await page.goto(`${planted}/history`);
    // The workflow input at the top of the page begins with the task definitions.
    await expect.poll(() => mainText(page), { timeout: 60_000 }).toContain(secrets.script);
    const row = page.locator('tr', { hasText: 'runSubagent' }).first();
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    // runSubagent's input (the script body) and its result (the failing script's stderr).
    await expect
      .poll(() => mainText(page), { timeout: 30_000 })
      .toContain(`"stderrTail": "${secrets.stderr}`);
    const history = await mainText(page);
    expect(history).toContain(`"content": "echo \\"${secrets.stderr}\\" >&2; exit 3"`);
    expect(history).toContain('"exitCode": 3');
    expect(history).not.toMatch(/"[A-Za-z0-9+/]{200,}={0,2}"/); // no ciphertext left

    await page.goto(`${planted}/memo`);
    await expect.poll(() => mainText(page), { timeout: 60_000 }).toContain(`exit 3 · ${secrets.stderr}`);

    // The bulk swarm's input is over the threshold: history holds a reference; the codec server
    // opens it from the data plane and cuts it for display, naming how to read it whole (the cut
    // line ends a 256 KiB line the UI's editor scrolls to: read it from what the UI was answered).
    const answered: string[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(codec.url))
        void response.text().then(
          (text) => answered.push(...decodedTexts(text)),
          () => {},
        );
    });
    await page.goto(`${historyUrl(runs.bulk)}/history`);
    await expect.poll(() => mainText(page), { timeout: 60_000 }).toContain('BULK-INPUT-START');
    await expect
      .poll(() => answered.join('\n'), { timeout: 30_000 })
      .toMatch(
        /… \d+ bytes more \(cut for display; read it whole with: wharf outputs show out_[A-Za-z0-9_-]+\)/,
      );
    await page.close();
  });

  it('without the codec the same pages show ciphertext and references', async () => {
    const page = await browser.newPage();
    // A codec endpoint that hands every payload back as it is: what a UI without Wharf's codec shows.
    await page.route(`${codec.url}/**`, async (route) => {
      await route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: {
          'Access-Control-Allow-Origin': uiOrigin,
          'Access-Control-Allow-Credentials': 'true',
          'Access-Control-Allow-Headers': 'X-Namespace, Content-Type, Authorization',
        },
        body: route.request().postData() ?? '{"payloads":[]}',
      });
    });
    const planted = historyUrl(runs.planted);
    const encrypted = Buffer.from('binary/encrypted').toString('base64');
    // Binary data shows as its base64 text: the ciphertext.
    const ciphertext = /Input\s*"[A-Za-z0-9+/]{200,}={0,2}"/;
    await page.goto(`${planted}/history`);
    const row = page.locator('tr', { hasText: 'runSubagent' }).first();
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    // The workflow's input and the expanded activity's input and result: ciphertext.
    await expect.poll(() => mainText(page), { timeout: 30_000 }).toMatch(ciphertext);
    await expect
      .poll(async () => [...(await mainText(page)).matchAll(/"[A-Za-z0-9+/]{200,}={0,2}"/g)].length, {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(3);
    for (const secret of Object.values(secrets)) expect(await mainText(page)).not.toContain(secret);
    await page.goto(`${planted}/memo`);
    await expect.poll(() => mainText(page), { timeout: 60_000 }).toContain(encrypted);
    const memo = await mainText(page);
    for (const secret of Object.values(secrets)) expect(memo).not.toContain(secret);
    await page.goto(`${historyUrl(runs.bulk)}/history`);
    await expect.poll(() => mainText(page), { timeout: 60_000 }).toContain('wharf-output-store');
    expect(await mainText(page)).not.toContain('BULK-INPUT-START');
    await page.close();
  });

  it('temporal workflow show --codec-endpoint decodes what plain `temporal workflow show` cannot', async () => {
    const cli = (await ensureTemporalCli()).path;
    const show = async (extra: string[]) =>
      (
        await execFileAsync(
          cli,
          [
            'workflow',
            'show',
            '--address',
            server.address,
            '-w',
            runs.planted.workflowId,
            '--output',
            'json',
            ...extra,
          ],
          { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
        )
      ).stdout;
    // The JSON output carries payloads as the codec answered them, their data in base64.
    const decoded = decodedTexts(await show(['--codec-endpoint', codec.url])).join('\n');
    for (const secret of Object.values(secrets)) expect(decoded).toContain(secret);
    const raw = await show([]);
    const rawTexts = `${raw}\n${decodedTexts(raw).join('\n')}`;
    expect(rawTexts).toContain('binary/encrypted');
    for (const secret of Object.values(secrets)) expect(rawTexts).not.toContain(secret);
  });

  it('scripts that print several MB complete byte-exact with encryption on', async () => {
    for (const [task, letters] of [
      ['numbers', false],
      ['letters', true],
    ] as const) {
      const [outId] = bulkOutputs[task] ?? [];
      expect(outId, task).toBeDefined();
      const { body } = await store.get({ outId: outId as string });
      const expected = expectedSeq(letters);
      expect(body.byteLength).toBeGreaterThan(2_000_000);
      expect(sha256(body)).toBe(sha256(Buffer.from(expected)));
    }
  });

  function historyUrl(run: { workflowId: string; runId: string }): string {
    return `${server.uiUrl}/namespaces/default/workflows/${encodeURIComponent(run.workflowId)}/${run.runId}`;
  }
});

async function mainText(page: Page): Promise<string> {
  return page.locator('main').innerText();
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The data of every payload in a JSON text (a codec answer, `temporal … --output json`), decoded from base64. */
function decodedTexts(json: string): string[] {
  return [...json.matchAll(/"(?:data|encoding)":\s*"([A-Za-z0-9+/=]+)"/g)].map((match) =>
    Buffer.from(match[1] as string, 'base64').toString('utf8'),
  );
}
