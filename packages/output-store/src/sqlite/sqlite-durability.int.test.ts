import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { latestSchemaVersion } from './migrations.js';
import { scratchDatabase } from './scratch-database.test.data.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const distEntry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const producer = { ownerId: 'owner', runId: 'run', spawnId: 'spawn' };

function runChild(script: string, args: string[]): ChildProcess & { exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, distEntry, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return Object.assign(child, { exit });
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = buffered.split('\n').find((line) => pattern.test(line));
      if (match) resolve(match);
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before printing ${pattern}`)));
  });
}

async function filesUnder(directory: string): Promise<string[]> {
  if (!existsSync(directory)) return [];
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

const slowWriter = `
const [entry, dbPath] = process.argv.slice(1);
const { SqliteOutputStore } = await import(entry);
const store = new SqliteOutputStore({ path: dbPath });
async function* endless() {
  const chunk = Buffer.alloc(256 * 1024, 7);
  for (let index = 0; ; index++) {
    yield chunk;
    if (index === 8) console.log('writing');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
await store.emit({ producer: { ownerId: 'owner', runId: 'run', spawnId: 'spawn' }, content: { kind: 'stream', stream: endless() }, idempotencyKey: 'crash' });
`;

const batchWriter = `
const [entry, dbPath, tag] = process.argv.slice(1);
const { SqliteOutputStore } = await import(entry);
const store = new SqliteOutputStore({ path: dbPath });
const refs = {};
for (let index = 0; index < 150; index++) {
  const shared = index % 2 === 0;
  const key = shared ? 'shared-' + index : tag + '-' + index;
  const text = (shared ? 'shared body ' : tag + ' body ') + index + (index % 25 === 0 ? 'x'.repeat(100 * 1024) : '');
  const spawnId = shared ? 'shared' : tag;
  refs[key] = (await store.emit({ producer: { ownerId: 'owner', runId: 'run', spawnId }, content: { kind: 'text', text }, idempotencyKey: key })).outId;
}
await store.close();
console.log('refs ' + JSON.stringify(refs));
`;

describe('SqliteOutputStore durability', () => {
  const scratch = scratchDatabase('wharf-output-durability-');

  it('leaves no partial record and no orphan file after a writer is killed mid-body', async () => {
    new SqliteOutputStore({ path: scratch.dbPath }).close();
    const child = runChild(slowWriter, [scratch.dbPath]);
    await waitForLine(child, /^writing$/);
    const temps = await filesUnder(join(`${scratch.dbPath}.blobs`, 'tmp'));
    expect(temps.length).toBe(1);
    child.kill('SIGKILL');
    await child.exit;
    const store = new SqliteOutputStore({ path: scratch.dbPath });
    try {
      expect((await store.list({})).records).toEqual([]);
      expect(await store.findByIdempotencyKey(producer, 'crash')).toBeUndefined();
      expect(await filesUnder(`${scratch.dbPath}.blobs`)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('removes unreferenced body files and dead temp files at open but spares live writers', async () => {
    const first = new SqliteOutputStore({ path: scratch.dbPath, inlineThresholdBytes: 16 });
    const kept = await first.emit({
      producer,
      content: { kind: 'text', text: 'a body larger than sixteen bytes' },
      idempotencyKey: 'kept',
    });
    const keptSha = (await first.stat(kept)).sha256;
    await first.close();
    const orphanSha = 'ab'.repeat(32);
    await mkdir(join(`${scratch.dbPath}.blobs`, 'ab'), { recursive: true });
    await writeFile(join(`${scratch.dbPath}.blobs`, 'ab', orphanSha), 'renamed but never committed');
    const deadTemp = join(`${scratch.dbPath}.blobs`, 'tmp', '999999999-dead-1.part');
    await writeFile(deadTemp, 'half written');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    const liveTemp = join(`${scratch.dbPath}.blobs`, 'tmp', `${sleeper.pid}-live-1.part`);
    await writeFile(liveTemp, 'still being written');
    try {
      const reopened = new SqliteOutputStore({ path: scratch.dbPath, inlineThresholdBytes: 16 });
      const files = (await filesUnder(`${scratch.dbPath}.blobs`)).map((path) => path.split('/').at(-1));
      expect(files.sort()).toEqual([keptSha, `${sleeper.pid}-live-1.part`].sort());
      expect(Buffer.from((await reopened.get(kept)).body).toString()).toBe(
        'a body larger than sixteen bytes',
      );
      await reopened.close();
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('lets two processes write one database concurrently without duplicates', async () => {
    new SqliteOutputStore({ path: scratch.dbPath }).close();
    const children = [
      runChild(batchWriter, [scratch.dbPath, 'left']),
      runChild(batchWriter, [scratch.dbPath, 'right']),
    ];
    const lines = await Promise.all(children.map((child) => waitForLine(child, /^refs /)));
    expect(await Promise.all(children.map((child) => child.exit))).toEqual([0, 0]);
    const [left, right] = lines.map((line) => JSON.parse(line.slice(5)) as Record<string, string>);
    for (let index = 0; index < 150; index += 2)
      expect(left?.[`shared-${index}`]).toBe(right?.[`shared-${index}`]);
    const store = new SqliteOutputStore({ path: scratch.dbPath });
    try {
      let count = 0;
      let page = await store.list({ limit: 1000 });
      count += page.records.length;
      while (page.nextCursor) {
        page = await store.list({ limit: 1000, cursor: page.nextCursor });
        count += page.records.length;
      }
      expect(count).toBe(75 + 75 + 75);
      const big = await store.get({ outId: right?.['right-25'] ?? '' });
      expect(big.record.storage).toBe('file');
      expect(Buffer.from(big.body).toString().startsWith('right body 25xxx')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('persists across reopen, records its schema version and refuses a newer schema', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath });
    const ref = await store.emit({
      producer,
      content: { kind: 'json', value: { ok: true } },
      idempotencyKey: 'persist',
      labels: { kind: 'plan' },
    });
    expect(store.schemaVersion).toBe(latestSchemaVersion);
    await store.close();
    const reopened = new SqliteOutputStore({ path: scratch.dbPath });
    expect((await reopened.list({ labels: { kind: 'plan' } })).records.map((record) => record.outId)).toEqual(
      [ref.outId],
    );
    await reopened.close();
    const raw = new Database(scratch.dbPath);
    raw
      .prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)')
      .run(latestSchemaVersion + 1, Date.now());
    raw.close();
    expect(() => new SqliteOutputStore({ path: scratch.dbPath })).toThrow(
      /newer than this @wharf\/output-store supports/,
    );
  });

  it('stores identical large bodies once and removes the file with the last reference', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, inlineThresholdBytes: 1024 });
    const body = 'z'.repeat(5000);
    const first = await store.emit({
      producer,
      content: { kind: 'text', text: body },
      idempotencyKey: 'one',
    });
    const second = await store.emit({
      producer,
      content: { kind: 'text', text: body },
      idempotencyKey: 'two',
    });
    const blobFiles = () => filesUnder(`${scratch.dbPath}.blobs`);
    expect(await blobFiles()).toHaveLength(1);
    await store.delete(first);
    expect(await blobFiles()).toHaveLength(1);
    expect(Buffer.from((await store.get(second)).body).toString()).toBe(body);
    await store.delete(second);
    expect(await blobFiles()).toHaveLength(0);
    await store.close();
  });
});
