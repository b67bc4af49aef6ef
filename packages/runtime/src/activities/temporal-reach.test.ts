import type { Context } from '@temporalio/activity';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchTemporalReach } from './temporal-reach.js';

/** An activity context whose client's server answers while `reachable()` says so. */
function contextWith(reachable: () => boolean, heartbeatTimeoutMs: number | undefined) {
  const client = {
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
    workflowService: {
      getSystemInfo: async () => {
        if (!reachable()) throw new Error('14 UNAVAILABLE: tcp connect error');
        return {};
      },
    },
  };
  return { info: { heartbeatTimeoutMs }, client } as unknown as Pick<Context, 'info' | 'client'>;
}

describe('watchTemporalReach', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts once the server has not answered for the heartbeat timeout', async () => {
    let up = true;
    const reach = watchTemporalReach(contextWith(() => up, 20_000));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reach.signal.aborted).toBe(false);
    up = false;
    await vi.advanceTimersByTimeAsync(15_000);
    expect(reach.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(reach.signal.aborted).toBe(true);
    expect((reach.signal.reason as Error).message).toMatch(/no answer from the Temporal server for 2\d s/);
    reach.stop();
  });

  it('never aborts without a heartbeat timeout, nor after stop()', async () => {
    const without = watchTemporalReach(contextWith(() => false, undefined));
    const stopped = watchTemporalReach(contextWith(() => false, 1_000));
    stopped.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(without.signal.aborted).toBe(false);
    expect(stopped.signal.aborted).toBe(false);
  });
});
