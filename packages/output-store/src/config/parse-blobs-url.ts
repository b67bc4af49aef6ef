import { InvalidStoreUrlError } from './config-errors.js';
import { s3BucketSchema, s3QuerySchema } from './schemas.js';
import { decodeAbsolutePath } from './url-path.js';

/**
 * Where large bodies live: a local directory or an S3 bucket (with an optional key prefix
 * and the settings of an S3-compatible server).
 *
 * @example
 * ```ts
 * const blobs: BlobsConfig = { kind: 's3', bucket: 'wharf', prefix: 'outputs', region: 'eu-west-1' };
 * ```
 */
export type BlobsConfig =
  | { readonly kind: 'file'; readonly directory: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly prefix: string;
      readonly endpoint?: string;
      readonly region?: string;
      readonly forcePathStyle?: boolean;
      readonly partSizeBytes?: number;
      readonly queueSize?: number;
    };

/**
 * Parses a blobs URL (`WHARF_BLOBS`):
 * - `file:///absolute/dir` — a local directory (no `..`, no host but `localhost`);
 * - `s3://bucket/optional/prefix?endpoint=http://host:9000&region=eu-west-1&forcePathStyle=true`
 *   (also `partSizeMiB`, `queueSize`). Credentials never go in the URL: they come from the
 *   standard AWS variables or the SDK's provider chain.
 *
 * Anything else is an {@link InvalidStoreUrlError} naming the bad part.
 *
 * @example
 * ```ts
 * parseBlobsUrl('s3://wharf/outputs?region=eu-west-1');
 * // { kind: 's3', bucket: 'wharf', prefix: 'outputs', region: 'eu-west-1' }
 * ```
 */
export function parseBlobsUrl(value: string, variable = 'WHARF_BLOBS'): BlobsConfig {
  if (value.trim() === '') throw new InvalidStoreUrlError(variable, 'value', 'is empty');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme === 's3') return parseS3(value.slice('s3:'.length), variable);
  if (scheme === 'file') return parseFile(value.slice('file:'.length), variable);
  throw new InvalidStoreUrlError(
    variable,
    'scheme',
    scheme === undefined
      ? 'is missing; use file:///dir or s3://bucket/prefix'
      : `"${scheme}:" is not supported; use file:///dir or s3://bucket/prefix`,
  );
}

function parseFile(rest: string, variable: string): BlobsConfig {
  if (rest.includes('?') || rest.includes('#'))
    throw new InvalidStoreUrlError(variable, 'path', 'must not have a query or fragment');
  if (!rest.startsWith('//'))
    throw new InvalidStoreUrlError(variable, 'path', 'must be written file:///absolute/dir');
  const afterSlashes = rest.slice(2);
  const slash = afterSlashes.indexOf('/');
  const host = slash === -1 ? afterSlashes : afterSlashes.slice(0, slash);
  if (host !== '' && host.toLowerCase() !== 'localhost')
    throw new InvalidStoreUrlError(
      variable,
      'host',
      `"${host}" is not allowed; blobs in a directory are local (file:///dir)`,
    );
  const decoded = decodeAbsolutePath(slash === -1 ? '' : afterSlashes.slice(slash));
  if ('reason' in decoded) throw new InvalidStoreUrlError(variable, 'path', decoded.reason);
  if (decoded.path === '/')
    throw new InvalidStoreUrlError(variable, 'path', 'must not be the root directory');
  return { kind: 'file', directory: decoded.path };
}

function parseS3(rest: string, variable: string): BlobsConfig {
  if (!rest.startsWith('//'))
    throw new InvalidStoreUrlError(variable, 'bucket', 'is missing (s3://bucket/prefix)');
  if (rest.includes('#')) throw new InvalidStoreUrlError(variable, 'fragment', 'is not allowed');
  const questionMark = rest.indexOf('?');
  const location = questionMark === -1 ? rest.slice(2) : rest.slice(2, questionMark);
  const query = questionMark === -1 ? '' : rest.slice(questionMark + 1);
  const slash = location.indexOf('/');
  const bucket = slash === -1 ? location : location.slice(0, slash);
  if (bucket.includes('@'))
    throw new InvalidStoreUrlError(
      variable,
      'credentials',
      'must not be in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or use the SDK provider chain)',
    );
  if (bucket === '') throw new InvalidStoreUrlError(variable, 'bucket', 'is missing (s3://bucket/prefix)');
  const bucketCheck = s3BucketSchema.safeParse(bucket);
  if (!bucketCheck.success)
    throw new InvalidStoreUrlError(
      variable,
      'bucket',
      `"${bucket}" ${bucketCheck.error.issues[0]?.message ?? 'is invalid'}`,
    );
  const prefix = parsePrefix(slash === -1 ? '' : location.slice(slash + 1), variable);
  const parameters = new URLSearchParams(query);
  const raw: Record<string, string> = {};
  for (const [key, text] of parameters) {
    if (key in raw) throw new InvalidStoreUrlError(variable, key, 'is given twice');
    raw[key] = text;
  }
  const parsed = s3QuerySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const part =
      issue?.code === 'unrecognized_keys' ? (issue.keys[0] ?? 'query') : String(issue?.path[0] ?? 'query');
    const reason =
      issue?.code === 'unrecognized_keys'
        ? 'is not a known parameter (endpoint, region, forcePathStyle, partSizeMiB, queueSize)'
        : (issue?.message ?? 'is invalid');
    throw new InvalidStoreUrlError(variable, part, reason);
  }
  const { endpoint, region, forcePathStyle, partSizeMiB, queueSize } = parsed.data;
  return {
    kind: 's3',
    bucket,
    prefix,
    ...(endpoint === undefined ? {} : { endpoint: endpoint.replace(/\/$/, '') }),
    ...(region === undefined ? {} : { region }),
    ...(forcePathStyle === undefined ? {} : { forcePathStyle }),
    ...(partSizeMiB === undefined ? {} : { partSizeBytes: partSizeMiB * 2 ** 20 }),
    ...(queueSize === undefined ? {} : { queueSize }),
  };
}

function parsePrefix(raw: string, variable: string): string {
  let prefix: string;
  try {
    prefix = decodeURIComponent(raw).replace(/\/+$/, '');
  } catch {
    throw new InvalidStoreUrlError(variable, 'prefix', 'has a malformed %-escape');
  }
  if (prefix === '') return '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f\\]/.test(prefix))
    throw new InvalidStoreUrlError(variable, 'prefix', 'must not contain control characters or backslashes');
  const segments = prefix.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..'))
    throw new InvalidStoreUrlError(variable, 'prefix', 'must not contain . or .. segments');
  if (segments.some((segment) => segment === ''))
    throw new InvalidStoreUrlError(variable, 'prefix', 'must not contain empty segments (//)');
  if (prefix.length > 512)
    throw new InvalidStoreUrlError(variable, 'prefix', 'must be at most 512 characters');
  return prefix;
}
