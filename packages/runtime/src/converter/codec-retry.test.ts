import { codecNonRetryableErrorTypes } from '@wharf/codec';
import { nonRetryableFailureTypes } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';

describe("the activities' retry policy and the payload codec", () => {
  it('does not retry an activity whose input the codec cannot open (unknown key id, failed authentication)', () => {
    expect(codecNonRetryableErrorTypes.length).toBeGreaterThan(0);
    for (const type of codecNonRetryableErrorTypes) expect(nonRetryableFailureTypes).toContain(type);
  });
});
