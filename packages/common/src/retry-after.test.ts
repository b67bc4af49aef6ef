import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from './retry-after.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('retryAfterMs', () => {
  it('reads retry-after-ms, then Retry-After as seconds or an HTTP date, any header case', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500' }, { now })).toBe(1500);
    expect(retryAfterMs({ 'Retry-After-Ms': '0.4' }, { now })).toBe(1);
    expect(retryAfterMs({ 'Retry-After': '2' }, { now })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, { now })).toBe(30_000);
  });

  it('prefers retry-after-ms, and falls back to Retry-After when it is unreadable', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, { now })).toBe(250);
    expect(retryAfterMs({ 'retry-after-ms': 'soon', 'retry-after': '9' }, { now })).toBe(9000);
  });

  it('reads headers with a case-insensitive get, as a fetch Headers is, the same way', () => {
    // What a fetch `Headers` does (this package compiles against no runtime's types).
    const fetchHeaders = (entries: Record<string, string>) => {
      const map = new Map(Object.entries(entries).map(([key, value]) => [key.toLowerCase(), value]));
      return { get: (name: string) => map.get(name.toLowerCase()) ?? null };
    };
    expect(retryAfterMs(fetchHeaders({ 'Retry-After': '3' }), { now })).toBe(3000);
    expect(retryAfterMs(fetchHeaders({ 'retry-after-ms': '70' }), { now })).toBe(70);
    expect(retryAfterMs(fetchHeaders({}), { now })).toBeUndefined();
  });

  it('reads a date already past as now', () => {
    expect(retryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, { now })).toBe(0);
  });

  it('ignores what is missing, negative or unreadable', () => {
    expect(retryAfterMs(undefined, { now })).toBeUndefined();
    expect(retryAfterMs({}, { now })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' }, { now })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-1' }, { now })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': '-5' }, { now })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '' }, { now })).toBeUndefined();
  });

  it('does not honour a wait longer than the cap, by default ten minutes', () => {
    expect(retryAfterMs({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000) }, { now })).toBe(
      MAX_RETRY_AFTER_MS,
    );
    expect(retryAfterMs({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) }, { now })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '5' }, { now, maxMs: 4_000 })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '4' }, { now, maxMs: 4_000 })).toBe(4_000);
  });
});
