import { describe, expect, it } from 'vitest';
import { TooManyUploadsError } from '../errors.js';
import { UploadSlots } from './upload-slots.js';

const spawn = (runId: string, spawnId: string) => ({ ownerId: 'owner', runId, spawnId });

describe('UploadSlots', () => {
  it('refuses a spawn past perSpawn and a run past perRun, and gives slots back once', () => {
    const slots = new UploadSlots({ perSpawn: 2, perRun: 3 });
    const first = slots.take(spawn('r', 'a'));
    slots.take(spawn('r', 'a'));
    expect(() => slots.take(spawn('r', 'a'))).toThrow(expect.objectContaining({ scope: 'spawn', limit: 2 }));
    slots.take(spawn('r', 'b'));
    let error: unknown;
    try {
      slots.take(spawn('r', 'c'));
    } catch (caught) {
      error = caught;
    }
    expect(TooManyUploadsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TOO_MANY_REQUESTS', scope: 'run', retryAfterSeconds: 1 });
    // Another run is not held by this one's uploads.
    expect(() => slots.take(spawn('other', 'a'))).not.toThrow();
    first();
    first();
    expect(slots.inProgress(spawn('r', 'a'))).toEqual({ spawn: 1, run: 2 });
    expect(() => slots.take(spawn('r', 'c'))).not.toThrow();
  });
});
