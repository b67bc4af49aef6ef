import { describe, expect, it } from 'vitest';
import { InvalidStoreUrlError } from './config-errors.js';
import { parseStoreUrl } from './parse-store-url.js';

function refusal(value: string): InvalidStoreUrlError {
  try {
    parseStoreUrl(value);
  } catch (error) {
    if (InvalidStoreUrlError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('parseStoreUrl', () => {
  it('reads postgres:// and postgresql:// URLs as they are', () => {
    for (const url of [
      'postgres://wharf:secret@db.internal:5432/wharf',
      'postgresql://wharf@localhost/wharf?sslmode=require',
      'postgres:///wharf?host=/var/run/postgresql',
    ]) {
      expect(parseStoreUrl(url)).toEqual({ kind: 'postgres', url });
    }
  });

  it('reads sqlite:///absolute paths, decoding escapes and allowing localhost', () => {
    expect(parseStoreUrl('sqlite:///var/wharf/outputs.db')).toEqual({
      kind: 'sqlite',
      path: '/var/wharf/outputs.db',
    });
    expect(parseStoreUrl('sqlite://localhost/srv/my%20store.db')).toEqual({
      kind: 'sqlite',
      path: '/srv/my store.db',
    });
    expect(parseStoreUrl('SQLITE:///x.db')).toEqual({ kind: 'sqlite', path: '/x.db' });
  });

  it('takes a plain path (relative or absolute) as a SQLite file', () => {
    expect(parseStoreUrl('.wharf/outputs.db')).toEqual({ kind: 'sqlite', path: '.wharf/outputs.db' });
    expect(parseStoreUrl('/var/lib/wharf/outputs.db')).toEqual({
      kind: 'sqlite',
      path: '/var/lib/wharf/outputs.db',
    });
    expect(parseStoreUrl('C:/wharf/outputs.db')).toEqual({ kind: 'sqlite', path: 'C:/wharf/outputs.db' });
  });

  it('refuses other schemes, naming the scheme', () => {
    const error = refusal('mysql://db/wharf');
    expect(error).toMatchObject({ code: 'INVALID_OPTION', variable: 'WHARF_STORE', part: 'scheme' });
    expect(error.message).toContain('"mysql:"');
    expect(refusal('s3://bucket/x').part).toBe('scheme');
  });

  it('refuses empty values and NUL bytes', () => {
    expect(refusal('').part).toBe('value');
    expect(refusal('   ').part).toBe('value');
    expect(refusal('out\0puts.db').part).toBe('value');
  });

  it('refuses broken postgres URLs, naming the part, without echoing the password', () => {
    expect(refusal('postgres:///wharf').part).toBe('host');
    const unparsable = refusal('postgres://wharf:hunter2@/wharf');
    expect(unparsable.part).toBe('url');
    expect(unparsable.message).not.toContain('hunter2');
    expect(refusal('postgres://wharf:hunter2@db:99999/wharf').part).toBe('url');
    expect(refusal('postgres://db:0/wharf').part).toBe('port');
    expect(refusal('postgres://db/wharf/extra').part).toBe('database');
  });

  it('refuses sqlite URLs with a host, a relative or traversing path, or a query', () => {
    expect(refusal('sqlite://db.example.com/outputs.db').part).toBe('host');
    expect(refusal('sqlite:outputs.db').part).toBe('path');
    expect(refusal('sqlite:///var/wharf/../../etc/passwd')).toMatchObject({
      part: 'path',
      reason: 'must not contain . or .. segments',
    });
    expect(refusal('sqlite:///var/%2e%2e/etc/x.db').part).toBe('path');
    expect(refusal('sqlite:///var/wharf/outputs.db?mode=ro').part).toBe('path');
    expect(refusal('sqlite:///bad%zzescape.db').reason).toBe('has a malformed %-escape');
    expect(refusal('sqlite:///').reason).toBe('must name a file');
  });

  it('names the variable it was given', () => {
    expect(() => parseStoreUrl('ftp://x', 'store')).toThrow(expect.objectContaining({ variable: 'store' }));
  });
});
