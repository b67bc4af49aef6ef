import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * Where an S3-compatible server answers and the credentials it accepts.
 *
 * @example
 * ```ts
 * const connection: S3Connection = {
 *   endpoint: 'http://127.0.0.1:7070', region: 'us-east-1', accessKeyId: 'a', secretAccessKey: 's',
 * };
 * ```
 */
export interface S3Connection {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * A running local S3 server (see {@link startS3Server}).
 *
 * @example
 * ```ts
 * const server: S3Server = await startS3Server();
 * await server.createBucket('bench');
 * await server.stop();
 * ```
 */
export interface S3Server extends S3Connection {
  /** Creates a bucket unless it exists. */
  createBucket(bucket: string): Promise<void>;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

/**
 * Options of {@link startS3Server}.
 *
 * @example
 * ```ts
 * const options: StartS3ServerOptions = { binary: '/opt/bin/versitygw' };
 * ```
 */
export interface StartS3ServerOptions {
  /** The versitygw binary; default `WHARF_VERSITYGW`, the tools cache, then `versitygw` on PATH. */
  readonly binary?: string;
  /** How long to wait for the first answer, default 30 s. */
  readonly startTimeoutMs?: number;
}

/**
 * The versitygw binary to run: `WHARF_VERSITYGW`, else `$WHARF_TOOLS_DIR/versitygw/versitygw`
 * (default tools dir `~/.cache/wharf-tools`, where `.ci/toolchain.sh` builds it), else the
 * name `versitygw` (looked up on PATH).
 *
 * @example
 * ```ts
 * console.log(findVersitygw(process.env));
 * ```
 */
export function findVersitygw(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.WHARF_VERSITYGW;
  if (configured !== undefined && configured !== '') return configured;
  const tools = env.WHARF_TOOLS_DIR || join(homedir(), '.cache', 'wharf-tools');
  const cached = join(tools, 'versitygw', 'versitygw');
  return existsSync(cached) ? cached : 'versitygw';
}

/**
 * Creates `bucket` on an S3 server unless it already exists (needs `@aws-sdk/client-s3`).
 *
 * @example
 * ```ts
 * await createS3Bucket(connection, 'blob-store-test');
 * ```
 */
export async function createS3Bucket(connection: S3Connection, bucket: string): Promise<void> {
  const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    endpoint: connection.endpoint,
    region: connection.region,
    forcePathStyle: true,
    credentials: { accessKeyId: connection.accessKeyId, secretAccessKey: connection.secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  } finally {
    client.destroy();
  }
}

async function waitForAnswer(endpoint: string, child: ChildProcess, deadline: number, log: () => string) {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`versitygw exited (${child.exitCode ?? child.signalCode}) before answering:\n${log()}`);
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`versitygw did not answer at ${endpoint}:\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Starts a real S3-compatible server for tests and benchmarks: versitygw over a fresh temp
 * directory (`versitygw … posix <dir>`), on a free loopback port, with random credentials.
 * Resolves once it answers HTTP.
 *
 * @example
 * ```ts
 * import { startS3Server } from '@wharf/output-store/testing';
 *
 * const server = await startS3Server();
 * await server.createBucket('outputs');
 * const blobs = new S3BlobStore({ bucket: 'outputs', endpoint: server.endpoint, forcePathStyle: true,
 *   region: server.region, credentials: server });
 * await server.stop();
 * ```
 */
export async function startS3Server(options: StartS3ServerOptions = {}): Promise<S3Server> {
  const binary = options.binary ?? findVersitygw();
  const directory = await mkdtemp(join(tmpdir(), 'wharf-s3-'));
  const port = await freePort();
  const accessKeyId = `wharf${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(18).toString('hex');
  const region = 'us-east-1';
  const endpoint = `http://127.0.0.1:${port}`;
  // No --keep-alive: with it, versitygw v1.8.0 now and then answers 400 ("error occurred when
  // parsing the HTTP request") to a request reusing a connection after a streamed upload.
  const child = spawn(
    binary,
    [
      ...['--access', accessKeyId, '--secret', secretAccessKey, '--region', region],
      ...['--port', `127.0.0.1:${port}`, '--quiet', 'posix', directory],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const capture = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(
        new Error(
          `cannot run ${binary} (build it with .ci/toolchain.sh or set WHARF_VERSITYGW): ${error.message}`,
        ),
      ),
    );
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await spawned;
    await waitForAnswer(endpoint, child, Date.now() + (options.startTimeoutMs ?? 30_000), () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  const connection = { endpoint, region, accessKeyId, secretAccessKey };
  return { ...connection, createBucket: (bucket) => createS3Bucket(connection, bucket), stop };
}
