import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exitNowMessage, type InterruptedRun, interruptMessage, stoppedMessage } from './interrupt.js';

const onServer: InterruptedRun = {
  workflowId: 'nightly-1',
  address: 'temporal.internal:7233',
  taskQueue: 'wharf',
  dataDir: '.wharf',
  link: 'http://ui.internal/namespaces/default/workflows/nightly-1/r1/history',
  startedServer: false,
};
const timing = { drainMs: 10_000, exitMs: 15_000 };

// The commands' default address is TEMPORAL_ADDRESS, else 127.0.0.1:7233: the latter here.
beforeEach(() => {
  vi.stubEnv('TEMPORAL_ADDRESS', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('interruptMessage', () => {
  it('says the swarm runs on, how to see it and give it a worker, and how long the drain takes', () => {
    expect(interruptMessage(onServer, timing)).toEqual([
      "wharf: interrupted. The swarm keeps running on the Temporal server as nightly-1; only this command's worker stops.",
      'wharf:   to see it: wharf status nightly-1 --address temporal.internal:7233 · Web UI: http://ui.internal/namespaces/default/workflows/nightly-1/r1/history',
      'wharf:   to go on: wharf resume nightly-1 --address temporal.internal:7233   gives it a worker again on its task queue wharf; it resumes where it stopped',
      'wharf: stopping the worker: steps in flight get up to 10 s to finish, then go back to the server to be retried; out within 15 s (Ctrl-C again to exit now)',
    ]);
  });

  it('names a data directory that is not the default, and leaves out the default address', () => {
    const lines = interruptMessage(
      { ...onServer, address: '127.0.0.1:7233', dataDir: 'runs/a', link: undefined },
      timing,
    );
    expect(lines[1]).toBe('wharf:   to see it: wharf status nightly-1');
    expect(lines[2]).toContain(
      'to go on: wharf resume nightly-1 --data-dir runs/a   gives it a worker again',
    );
  });

  it('with a dev server the command started, says where the run is kept and that wharf resume goes on with it', () => {
    const lines = interruptMessage({ ...onServer, startedServer: true }, timing);
    expect(lines[0]).toBe(
      'wharf: interrupted. The swarm nightly-1 is kept by the Temporal dev server this command started, which stops with it (its state stays in .wharf/temporal.db).',
    );
    expect(lines[1]).toContain('to go on: wharf resume nightly-1   starts that server again with a worker');
    expect(lines.at(-1)).toContain('up to 10 s');
  });

  it('gives the Ctrl-C hint on Ctrl-C only, not on SIGTERM', () => {
    expect(interruptMessage(onServer, { ...timing, signal: 'SIGINT' }).at(-1)).toContain(
      '(Ctrl-C again to exit now)',
    );
    const terminated = interruptMessage(onServer, { ...timing, signal: 'SIGTERM' });
    expect(terminated.join('\n')).not.toContain('Ctrl-C');
    expect(terminated.at(-1)).toBe(
      'wharf: stopping the worker: steps in flight get up to 10 s to finish, then go back to the server to be retried; out within 15 s (a second signal exits now)',
    );
  });

  it('before the swarm started, only says it stops', () => {
    expect(interruptMessage(undefined, timing)).toEqual(['wharf: interrupted while starting; stopping.']);
  });
});

describe('the one-line reminders', () => {
  it('name the run and where it goes on', () => {
    expect(exitNowMessage(onServer)).toBe(
      'wharf: exiting now; nightly-1 keeps running on the server (wharf status nightly-1 --address temporal.internal:7233).',
    );
    expect(exitNowMessage({ ...onServer, startedServer: true, dataDir: 'd' })).toBe(
      'wharf: exiting now; nightly-1 is kept in d/temporal.db (wharf resume nightly-1 --data-dir d goes on with it).',
    );
    expect(stoppedMessage(onServer)).toBe(
      'stopped; nightly-1 keeps running on the server, waiting for a worker',
    );
    expect(exitNowMessage(undefined)).toBe('wharf: exiting now.');
  });
});
