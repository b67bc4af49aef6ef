import { describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { parseAge, parseSize } from './retention-policy.js';

describe('parseAge and parseSize', () => {
  it('reads ages and sizes with their units', () => {
    expect(parseAge('7d', '--older-than')).toBe(7 * 86_400_000);
    expect(parseAge('90m', '--older-than')).toBe(90 * 60_000);
    expect(parseAge('1.5h', '--older-than')).toBe(5_400_000);
    expect(parseSize('10GiB', '--max-bytes')).toBe(10 * 2 ** 30);
    expect(parseSize('512 MB', '--max-bytes')).toBe(512e6);
    expect(parseSize('1048576', '--max-bytes')).toBe(1_048_576);
  });

  it('refuses anything else with a typed error naming the option', () => {
    for (const [parse, text] of [
      [parseAge, '7'],
      [parseAge, '0d'],
      [parseAge, 'soon'],
      [parseSize, '-1'],
      [parseSize, '10 parsecs'],
    ] as const) {
      let caught: unknown;
      try {
        parse(text, '--flag');
      } catch (error) {
        caught = error;
      }
      expect(WharfOrchestratorError.isInstance(caught)).toBe(true);
      expect((caught as Error).message).toContain('--flag');
      expect((caught as Error).message).toContain(text);
    }
  });
});
