import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { OutputClient, spawnEnv, UploadTimeoutError } from '@wharf/output-store/client';
import { CliError } from '../cli-error.js';
import { type CliIo, printJson } from '../output.js';

/** Options of {@link emitCommand}. */
export interface EmitCommandOptions {
  name?: string;
  contentType?: string;
  label: string[];
  /** Idempotency key; inside a subagent it is scoped by `WHARF_EMIT_KEY`. */
  key?: string;
  json: boolean;
}

/**
 * `cmd | wharf emit`: streams stdin to the intake server with the spawn's injected URL and
 * token (`WHARF_OUTPUT_URL`, `WHARF_OUTPUT_TOKEN`) and prints the new out id. Inside a
 * subagent (`WHARF_EMIT_KEY` set) without `--key`, stdin is first spooled to a temporary file
 * to key the output by its content, name and type: a retried script that EMITs the same
 * output again gets the same ref instead of a second copy. An upload the intake cut as too
 * slow (stdin stalled) fails with exit 75 (`TIMEOUT`), any other failure with exit 2.
 */
export async function emitCommand(
  options: EmitCommandOptions,
  io: CliIo,
  input: AsyncIterable<Uint8Array> = process.stdin,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  const labels: Record<string, string> = {};
  for (const pair of options.label) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError('USAGE', `--label expects key=value, got "${pair}"`);
    labels[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  const spool =
    options.key === undefined && env[spawnEnv.emitKey] ? await spoolAndHash(input, options) : undefined;
  try {
    const key = options.key ?? (spool === undefined ? undefined : `sha256-${spool.hash}`);
    const client = new OutputClient({ env });
    const ref = await client.emit(spool === undefined ? input : createReadStream(spool.path), {
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
      ...(key === undefined ? {} : { idempotencyKey: key }),
      labels,
    });
    if (options.json) printJson(io, ref);
    else io.out(ref.outId);
    return ref.outId;
  } catch (error) {
    // Too slow an upload is not a usage error: the same command may pass when retried.
    if (UploadTimeoutError.isInstance(error))
      throw new CliError('TIMEOUT', `wharf emit: timed out: ${error.message}`, { cause: error });
    throw new CliError('USAGE', `wharf emit: ${(error as Error).message}`, { cause: error });
  } finally {
    if (spool !== undefined) await rm(spool.dir, { recursive: true, force: true });
  }
}

/** Copies stdin to a temporary file, hashing name, content type and body on the way. */
async function spoolAndHash(
  input: AsyncIterable<Uint8Array>,
  options: EmitCommandOptions,
): Promise<{ dir: string; path: string; hash: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'wharf-emit-'));
  const path = join(dir, 'body');
  const hash = createHash('sha256')
    .update(options.name ?? '')
    .update('\0')
    .update(options.contentType ?? '')
    .update('\0');
  await pipeline(
    input,
    async function* (chunks: AsyncIterable<Uint8Array>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(path),
  );
  return { dir, path, hash: hash.digest('hex').slice(0, 40) };
}
