import { describe, expect, it } from 'vitest';
import { InvalidStoreUrlError } from './config-errors.js';
import { parseBlobsUrl } from './parse-blobs-url.js';

function refusal(value: string): InvalidStoreUrlError {
  try {
    parseBlobsUrl(value);
  } catch (error) {
    if (InvalidStoreUrlError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('parseBlobsUrl: s3://', () => {
  it('reads bucket, prefix and every parameter', () => {
    expect(
      parseBlobsUrl(
        's3://wharf-outputs/team/a/?endpoint=http://127.0.0.1:9000/&region=eu-west-1&forcePathStyle=true&partSizeMiB=16&queueSize=8',
      ),
    ).toEqual({
      kind: 's3',
      bucket: 'wharf-outputs',
      prefix: 'team/a',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      partSizeBytes: 16 * 2 ** 20,
      queueSize: 8,
    });
  });

  it('allows a bare bucket and an escaped prefix', () => {
    expect(parseBlobsUrl('s3://wharf')).toEqual({ kind: 's3', bucket: 'wharf', prefix: '' });
    expect(parseBlobsUrl('s3://my.bucket-1/out%20puts?forcePathStyle=false')).toEqual({
      kind: 's3',
      bucket: 'my.bucket-1',
      prefix: 'out puts',
      forcePathStyle: false,
    });
  });

  it('refuses a missing or malformed bucket, naming it', () => {
    expect(refusal('s3://').part).toBe('bucket');
    expect(refusal('s3:///prefix').part).toBe('bucket');
    expect(refusal('s3:wharf').part).toBe('bucket');
    for (const bucket of [
      'ab',
      'Wharf',
      'wharf_outputs',
      '-wharf',
      'wharf-',
      'a..b',
      '192.168.1.1',
      'x'.repeat(64),
    ]) {
      const error = refusal(`s3://${bucket}/p`);
      expect(error.part, bucket).toBe('bucket');
      expect(error.message).toContain(`"${bucket}"`);
    }
  });

  it('refuses credentials in the URL and does not echo them', () => {
    const error = refusal('s3://AKIAXXXX:topsecret@wharf/p');
    expect(error.part).toBe('credentials');
    expect(error.message).not.toContain('topsecret');
  });

  it('refuses a bad endpoint: not a URL, another protocol, a path, credentials in it', () => {
    for (const endpoint of [
      'not a url',
      'ftp://host:21',
      'http://host:9000/some/path',
      'http://u:p@host:9000',
      'localhost:9000',
    ]) {
      expect(refusal(`s3://wharf?endpoint=${encodeURIComponent(endpoint)}`).part, endpoint).toBe('endpoint');
    }
  });

  it('refuses bad parameter values, unknown and repeated parameters, naming each', () => {
    expect(refusal('s3://wharf?forcePathStyle=yes').part).toBe('forcePathStyle');
    expect(refusal('s3://wharf?region=EU%20West').part).toBe('region');
    expect(refusal('s3://wharf?partSizeMiB=4').part).toBe('partSizeMiB');
    expect(refusal('s3://wharf?partSizeMiB=8.5').part).toBe('partSizeMiB');
    expect(refusal('s3://wharf?queueSize=0').part).toBe('queueSize');
    expect(refusal('s3://wharf?forcepathstyle=true')).toMatchObject({ part: 'forcepathstyle' });
    expect(refusal('s3://wharf?region=a&region=b').part).toBe('region');
    expect(refusal('s3://wharf/p#frag').part).toBe('fragment');
  });

  it('refuses prefixes that traverse, have empty segments, control characters or bad escapes', () => {
    for (const prefix of ['a/../b', '..', './a', 'a//b', '%2e%2e/x', 'a%00b', 'a\\b', 'bad%zz']) {
      expect(refusal(`s3://wharf/${prefix}`).part, prefix).toBe('prefix');
    }
  });
});

describe('parseBlobsUrl: file://', () => {
  it('reads an absolute directory, with or without localhost and a trailing slash', () => {
    expect(parseBlobsUrl('file:///var/lib/wharf/blobs/')).toEqual({
      kind: 'file',
      directory: '/var/lib/wharf/blobs',
    });
    expect(parseBlobsUrl('file://localhost/srv/blobs')).toEqual({ kind: 'file', directory: '/srv/blobs' });
    expect(parseBlobsUrl('file:///srv/my%20blobs')).toEqual({ kind: 'file', directory: '/srv/my blobs' });
  });

  it('refuses path traversal however it is spelt', () => {
    for (const url of [
      'file:///srv/blobs/../../etc',
      'file:///srv/./blobs',
      'file:///srv/%2e%2e/etc',
      'file:///srv/%2E%2E',
      'file:///srv/..',
    ]) {
      expect(refusal(url), url).toMatchObject({ part: 'path', reason: 'must not contain . or .. segments' });
    }
  });

  it('refuses a remote host, a relative path, the root, NUL, empty segments and queries', () => {
    expect(refusal('file://fileserver/share/blobs').part).toBe('host');
    expect(refusal('file:blobs').part).toBe('path');
    expect(refusal('file://').reason).toContain('absolute');
    expect(refusal('file:///').reason).toBe('must not be the root directory');
    expect(refusal('file:///srv/a%00b').reason).toBe('must not contain NUL');
    expect(refusal('file:///srv//blobs').part).toBe('path');
    expect(refusal('file:///srv/blobs?x=1').part).toBe('path');
  });
});

describe('parseBlobsUrl: other input', () => {
  it('refuses a missing or unknown scheme, naming the scheme', () => {
    expect(refusal('/var/lib/wharf/blobs')).toMatchObject({ part: 'scheme', variable: 'WHARF_BLOBS' });
    expect(refusal('gs://bucket/x').message).toContain('"gs:"');
    expect(refusal('http://minio:9000/bucket').part).toBe('scheme');
    expect(refusal('').part).toBe('value');
  });
});
