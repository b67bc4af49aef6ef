import { describe, expect, it } from 'vitest';
import { requester } from './cancel.js';

describe('requester', () => {
  it('is --by, else the OS user', () => {
    expect(requester({ by: ' ana ' }, { USER: 'bo' })).toBe('ana');
    expect(requester({}, { USER: 'bo' })).toBe('bo');
    expect(requester({ by: '' }, { USER: 'bo' })).toBe('bo');
    expect(requester({}, {}).length).toBeGreaterThan(0);
  });
});
