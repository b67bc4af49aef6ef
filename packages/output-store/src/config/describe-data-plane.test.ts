import { describe, expect, it } from 'vitest';
import { describeBlobs, describeStore } from './describe-data-plane.js';
import { parseBlobsUrl } from './parse-blobs-url.js';
import { parseStoreUrl } from './parse-store-url.js';

describe('describeStore', () => {
  it('prints a PostgreSQL URL without its password, in the userinfo or the query', () => {
    const described = describeStore(
      parseStoreUrl(
        'postgres://wharf:s3cret@db.internal:5432/wharf?sslmode=require&password=other&sslkey=/etc/k.pem',
      ),
    );
    expect(described).toBe('postgres://wharf@db.internal:5432/wharf?sslmode=require');
    expect(described).not.toContain('s3cret');
    expect(described).not.toContain('other');
  });

  it('prints a SQLite store as its path', () => {
    expect(describeStore(parseStoreUrl('sqlite:///var/wharf/outputs.db'))).toBe('/var/wharf/outputs.db');
  });
});

describe('describeBlobs', () => {
  const sqlite = parseStoreUrl('/var/wharf/outputs.db');
  it('prints a bucket with its prefix, endpoint and region', () => {
    expect(
      describeBlobs(parseBlobsUrl('s3://wharf/outputs?endpoint=http://s3:9000&region=eu-west-1'), sqlite),
    ).toBe('s3://wharf/outputs (endpoint http://s3:9000, region eu-west-1)');
    expect(describeBlobs(parseBlobsUrl('s3://wharf'), sqlite)).toBe('s3://wharf');
  });

  it('prints a directory, or the SQLite body directory when no blobs are configured', () => {
    expect(describeBlobs(parseBlobsUrl('file:///srv/blobs'), sqlite)).toBe('/srv/blobs');
    expect(describeBlobs(undefined, sqlite)).toBe('/var/wharf/outputs.db.blobs');
  });
});
