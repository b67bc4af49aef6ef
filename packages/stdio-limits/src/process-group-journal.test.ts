import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessGroupJournal, readJournal, replayJournal } from './process-group-journal.js';

const TOKEN = '00000000-0000-4000-8000-000000000000';

describe('replayJournal', () => {
  it('keeps what was reserved or added and not released or removed, skipping a torn last line', () => {
    const text = [
      { op: 'reserve', ownerPid: 5, token: 'a' },
      { op: 'reserve', ownerPid: 5, token: 'b' },
      { op: 'add', pgid: 10, ownerPid: 5, token: 'a' },
      { op: 'reserve', ownerPid: 5, token: 'c' },
      { op: 'release', token: 'c' },
      { op: 'add', pgid: 11, ownerPid: 5, token: 'd' },
      { op: 'remove', pgid: 11 },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join('');
    const state = replayJournal(`${text}{"op":"remove","pg`);
    expect([...state.groups.keys()]).toEqual([10]);
    expect([...state.pending.keys()]).toEqual(['b']);
  });
});

describe('ProcessGroupJournal', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-journal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each line before it returns, to one file named for this process', async () => {
    const journal = new ProcessGroupJournal(join(dir, 'host'));
    journal.append({ op: 'reserve', ownerPid: process.pid, token: TOKEN });
    journal.append({ op: 'add', pgid: 7, ownerPid: process.pid, token: TOKEN });
    expect(await readdir(join(dir, 'host'))).toEqual([expect.stringMatching(`^journal-${process.pid}-`)]);
    const state = readJournal(journal.path as string);
    expect(state.groups.get(7)?.token).toBe(TOKEN);
    expect(state.pending.size).toBe(0);
    journal.append({ op: 'remove', pgid: 7 });
    journal.close();
    // Nothing left to reap: the file goes with the journal.
    expect(await readdir(join(dir, 'host'))).toEqual([]);
  });

  it('rewrites a long journal to a new file with only what it still holds', async () => {
    const journal = new ProcessGroupJournal(dir);
    journal.append({ op: 'add', pgid: 1, ownerPid: process.pid, token: 'kept' });
    const first = journal.path;
    for (let pgid = 2; pgid < 3_000; pgid++) {
      journal.append({ op: 'add', pgid, ownerPid: process.pid, token: String(pgid) });
      journal.append({ op: 'remove', pgid });
    }
    expect(journal.path).not.toBe(first);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await readFile(journal.path as string, 'utf8')).split('\n').length).toBeLessThan(4_096);
    expect([...readJournal(journal.path as string).groups.keys()]).toEqual([1]);
  });
});
