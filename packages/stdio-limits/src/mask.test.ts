import { describe, expect, it } from 'vitest';
import { maskOutput } from './mask.js';
import { outputFixture } from './test-fixtures.js';

describe('maskOutput', () => {
  it('names the original size and where the full text is', () => {
    expect(maskOutput(outputFixture('build', { originalSize: 50_000, filePath: '.outputs/build.log' }))).toBe(
      '[output masked: 50000 bytes; full text at .outputs/build.log]',
    );
    expect(maskOutput(outputFixture('lint', { originalSize: 12 }))).toBe(
      '[output masked: 12 bytes; full text not stored]',
    );
  });
});
