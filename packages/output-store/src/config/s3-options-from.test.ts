import { describe, expect, it } from 'vitest';
import { s3OptionsFrom } from './open-data-plane.js';
import { parseBlobsUrl } from './parse-blobs-url.js';

function s3(url: string) {
  const config = parseBlobsUrl(url);
  if (config.kind !== 's3') throw new Error('expected s3');
  return config;
}

describe('s3OptionsFrom', () => {
  it('takes credentials, session token, region and endpoint from the standard AWS variables', () => {
    expect(
      s3OptionsFrom(s3('s3://wharf/outputs'), {
        AWS_ACCESS_KEY_ID: 'AKIA1',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
        AWS_REGION: 'eu-west-1',
        AWS_DEFAULT_REGION: 'us-west-2',
        AWS_ENDPOINT_URL: 'http://generic:9000',
        AWS_ENDPOINT_URL_S3: 'http://minio:9000',
      }),
    ).toEqual({
      bucket: 'wharf',
      prefix: 'outputs',
      region: 'eu-west-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'secret', sessionToken: 'token' },
    });
  });

  it('lets the URL win over the variables, and leaves AWS S3 to the SDK defaults', () => {
    expect(
      s3OptionsFrom(
        s3(
          's3://wharf?region=ap-south-1&endpoint=https://s3.example.com&forcePathStyle=false&partSizeMiB=10&queueSize=2',
        ),
        {
          AWS_REGION: 'eu-west-1',
          AWS_ENDPOINT_URL_S3: 'http://minio:9000',
        },
      ),
    ).toEqual({
      bucket: 'wharf',
      prefix: '',
      region: 'ap-south-1',
      endpoint: 'https://s3.example.com',
      forcePathStyle: false,
      partSizeBytes: 10 * 2 ** 20,
      queueSize: 2,
    });
    expect(
      s3OptionsFrom(s3('s3://wharf'), { AWS_DEFAULT_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: '' }),
    ).toEqual({
      bucket: 'wharf',
      prefix: '',
      region: 'us-west-2',
    });
    expect(s3OptionsFrom(s3('s3://wharf'), {}).region).toBe('us-east-1');
  });

  it('refuses half a credential pair, naming the missing variable', () => {
    expect(() => s3OptionsFrom(s3('s3://wharf'), { AWS_ACCESS_KEY_ID: 'AKIA1' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', variable: 'AWS_SECRET_ACCESS_KEY' }),
    );
    expect(() => s3OptionsFrom(s3('s3://wharf'), { AWS_SECRET_ACCESS_KEY: 's' })).toThrow(
      expect.objectContaining({ variable: 'AWS_ACCESS_KEY_ID' }),
    );
  });
});
