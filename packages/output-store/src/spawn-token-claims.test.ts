import { describe, expect, it } from 'vitest';
import { spawnTokenClaimsSchema } from './schemas.js';
import { parseSpawnTokenClaims } from './spawn-token-claims.js';

const valid: Record<string, unknown> = {
  v: 1,
  ownerId: 'o',
  runId: 'r',
  spawnId: 's',
  readRefs: ['out_AAAAAAAAAAAAAAAA'],
  expiresAt: 2_000,
  maxOutputs: 3,
  maxOutputBytes: 1024,
};

/** Payloads around the schema's edges: each field missing, mistyped, empty, too long or unstorable. */
function variants(): unknown[] {
  const edits: Record<string, unknown>[] = [
    {},
    { agent: 'planner' },
    { readRun: true, readRuns: ['r0', 'r1'] },
    { readRun: false },
    { extra: 'stripped by the schema' },
    { ['__proto__']: { v: 2 } },
  ];
  const wrong: unknown[] = [
    undefined,
    null,
    '',
    'x'.repeat(256),
    'x'.repeat(257),
    'a\u0000b',
    '\ud800',
    '\ud83d\ude00',
    0,
    -1,
    1.5,
    2 ** 53,
    true,
    [],
    ['x'],
    [1],
    Array.from({ length: 101 }, () => 'r'),
    Array.from({ length: 10_001 }, () => 'o'),
    {},
  ];
  for (const key of [...Object.keys(valid), 'agent', 'readRun', 'readRuns'])
    for (const value of wrong) edits.push({ [key]: value });
  const payloads: unknown[] = edits.map((edit) => JSON.parse(JSON.stringify({ ...valid, ...edit })));
  for (const key of Object.keys(valid)) {
    const { [key]: _dropped, ...rest } = valid;
    payloads.push(rest);
  }
  // Only JSON.parse makes an own `__proto__` key, as a token's payload would have it.
  payloads.push(
    JSON.parse(
      '{"v":1,"ownerId":"o","runId":"r","spawnId":"s","readRefs":[],"expiresAt":1,"maxOutputs":1,"maxOutputBytes":1,"__proto__":{"a":1}}',
    ),
  );
  payloads.push(null, [], 'claims', 42, [valid]);
  return payloads;
}

describe('parseSpawnTokenClaims', () => {
  it('accepts and answers exactly what the claims schema does, key order included', () => {
    const payloads = variants();
    let accepted = 0;
    for (const payload of payloads) {
      const parsed = spawnTokenClaimsSchema.safeParse(payload);
      const ours = parseSpawnTokenClaims(payload);
      if (!parsed.success) {
        expect(ours, JSON.stringify(payload)?.slice(0, 200)).toBeUndefined();
        continue;
      }
      accepted += 1;
      expect(ours).toEqual(parsed.data);
      expect(JSON.stringify(ours)).toBe(JSON.stringify(parsed.data));
    }
    // Both outcomes are exercised: the edges above are not all refused.
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(payloads.length - 100);
  });

  it('hands back arrays of its own, not the payload’s', () => {
    const readRefs = ['out_AAAAAAAAAAAAAAAA'];
    const readRuns = ['r2'];
    const payload = { ...valid, readRefs, readRun: true, readRuns };
    const claims = parseSpawnTokenClaims(payload);
    expect(claims?.readRefs).not.toBe(readRefs);
    expect(claims?.readRuns).not.toBe(readRuns);
    readRefs.push('out_BBBBBBBBBBBBBBBB');
    expect(claims?.readRefs).toEqual(['out_AAAAAAAAAAAAAAAA']);
  });
});
