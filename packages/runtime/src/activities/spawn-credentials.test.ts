import { spawnEnv, verifySpawnToken } from '@wharf/output-store';
import type { SubagentInput } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { type SubagentIds, safeId } from './activity-identity.js';
import { spawnCredentials } from './spawn-credentials.js';

const secret = 'spawn-credentials-test-secret-0123456789';
const ids: SubagentIds = {
  jobId: 'join',
  workerId: 'run-1:join',
  runId: 'run-1',
  ownerId: 'o',
  emitKeyPrefix: 'k',
};
const refs = (count: number) =>
  Array.from({ length: count }, (_, index) => `out_${String(index).padStart(16, '0')}`);
const credentials = spawnCredentials({ intakeUrl: 'http://127.0.0.1:1', secret, now: () => 0 });
const tokenFor = (inRefs: string[]) =>
  credentials(ids, { inRefs } as unknown as SubagentInput)[spawnEnv.outputToken] as string;

describe('spawnCredentials', () => {
  it('lists a narrow fan-in ref by ref', () => {
    const claims = verifySpawnToken(tokenFor(refs(3)), secret, 0);
    expect(claims.readRefs).toEqual(refs(3));
    expect(claims.readRun).toBeUndefined();
  });

  it('keeps the token of a 10,000-input join a few hundred bytes: it may read its run instead', () => {
    const token = tokenFor(refs(10_000));
    // An environment variable is capped at 128 KiB and a request header at 16 KiB.
    expect(token.length).toBeLessThan(1024);
    const claims = verifySpawnToken(token, secret, 0);
    expect(claims).toMatchObject({ runId: 'run-1', spawnId: 'join', readRefs: [], readRun: true });
  });

  it("lets a re-run's wide join read the runs it reuses outputs from, by their stored run ids", () => {
    const input = { inRefs: refs(500), readRuns: ['report-1', 'nightly/2026'] } as unknown as SubagentInput;
    const claims = verifySpawnToken(credentials(ids, input)[spawnEnv.outputToken] as string, secret, 0);
    expect(claims).toMatchObject({ readRun: true, readRuns: ['report-1', safeId('nightly/2026')] });
    // A narrow fan-in lists its refs: no run is opened to it.
    const narrow = { inRefs: refs(2), readRuns: ['report-1'] } as unknown as SubagentInput;
    expect(
      verifySpawnToken(credentials(ids, narrow)[spawnEnv.outputToken] as string, secret, 0).readRuns,
    ).toBeUndefined();
  });
});
