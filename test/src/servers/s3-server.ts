import { type S3Connection, type S3Server, startS3Server } from '@wharf/output-store/testing';

export { type S3Connection, type S3Server, startS3Server };

/**
 * The S3 server a test run uses: an external one when `WHARF_TEST_S3_ENDPOINT` is set (with
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_REGION`, default `us-east-1`), else a
 * local versitygw started for the run. `stop()` stops only what this call started.
 *
 * @example
 * ```ts
 * const server = await s3ServerFor(process.env);
 * console.log(server.endpoint);
 * await server.stop();
 * ```
 */
export async function s3ServerFor(
  env: Readonly<Record<string, string | undefined>>,
): Promise<S3Connection & { stop(): Promise<void> }> {
  const endpoint = env.WHARF_TEST_S3_ENDPOINT;
  if (endpoint === undefined || endpoint === '') return startS3Server();
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error('WHARF_TEST_S3_ENDPOINT needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region: env.AWS_REGION || 'us-east-1',
    stop: async () => {},
  };
}
