import { describe, expect, it } from 'vitest';
import { intakeWriterThread, outputStoreParts } from './sizes.js';

describe('outputStoreParts', () => {
  it('runs every part unless WHARF_BENCH_OUTPUT_STORE_ROWS names some', () => {
    expect([...outputStoreParts(undefined)]).toEqual(['ingest', 'emit', 'intake', 'get']);
    expect([...outputStoreParts(' ')]).toEqual(['ingest', 'emit', 'intake', 'get']);
    expect([...outputStoreParts('intake')]).toEqual(['intake']);
    expect([...outputStoreParts('get, emit')]).toEqual(['get', 'emit']);
  });

  it('refuses a part it does not have', () => {
    expect(() => outputStoreParts('intake,http')).toThrow(
      /names http; the parts are ingest, emit, intake, get/,
    );
  });
});

describe('intakeWriterThread', () => {
  it('runs the intake store as it defaults (no writer thread) unless WHARF_BENCH_INTAKE_WRITER_THREAD is 1', () => {
    expect(intakeWriterThread(undefined)).toBe(false);
    expect(intakeWriterThread('1')).toBe(true);
    expect(intakeWriterThread('0')).toBe(false);
  });
});
