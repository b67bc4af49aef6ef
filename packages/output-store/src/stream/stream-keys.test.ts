import { describe, expect, it } from 'vitest';
import { isStreamId, isStreamLabel, keyOfStreamPart, streamId, streamPartKey } from './stream-keys.js';

describe('stream keys', () => {
  const scope = { ownerId: 'team-a', runId: 'run-7', spawnId: 'draft' };

  it('gives one id per scope and key, and another for any other', () => {
    const id = streamId(scope, 'answer');
    expect(isStreamId(id)).toBe(true);
    expect(streamId({ ...scope }, 'answer')).toBe(id);
    expect(streamId({ ...scope, spawnId: 'other' }, 'answer')).not.toBe(id);
    expect(streamId(scope, 'answer2')).not.toBe(id);
    // The parts are joined unambiguously: moving a character from one to the next changes the id.
    expect(streamId({ ...scope, runId: 'run-7d', spawnId: 'raft' }, 'answer')).not.toBe(id);
    expect(isStreamId('out_3fZ8kQ1xP0aLm2Vb')).toBe(false);
    expect(isStreamId(`${id}x`)).toBe(false);
  });

  it('derives part keys from the whole key and gives that key back', () => {
    expect(streamPartKey('a/b', 2, 'chunk', 7)).toBe('a/b/wharf.stream/2/chunk/7');
    expect(streamPartKey('a/b', 0, 'abandoned')).toBe('a/b/wharf.stream/0/abandoned');
    for (const part of ['open', 'sealed', 'abandoned'] as const)
      expect(keyOfStreamPart(streamPartKey('x/wharf.stream/1/open', 3, part))).toBe('x/wharf.stream/1/open');
    expect(keyOfStreamPart(streamPartKey('k', 1, 'chunk', 12))).toBe('k');
    expect(keyOfStreamPart('k')).toBeUndefined();
    expect(keyOfStreamPart('k/wharf.stream/1/chunk/')).toBeUndefined();
  });

  it('tells the stream labels apart from others that merely start alike', () => {
    expect(isStreamLabel('wharf.stream')).toBe(true);
    expect(isStreamLabel('wharf.stream.seq')).toBe(true);
    expect(isStreamLabel('wharf.streaming')).toBe(false);
    expect(isStreamLabel('wharf.part')).toBe(false);
  });
});
