import { z } from 'zod';

const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const ipAddressPattern = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * An S3 bucket name by the S3 rules: 3–63 lower-case letters, digits, `.` and `-`, starting
 * and ending with a letter or digit, no `..`, not an IP address.
 *
 * @example
 * ```ts
 * s3BucketSchema.parse('wharf-outputs');
 * ```
 */
export const s3BucketSchema = z
  .string()
  .regex(
    bucketPattern,
    'must be 3-63 lower-case letters, digits, "." or "-", starting and ending with a letter or digit',
  )
  .refine((bucket) => !bucket.includes('..'), 'must not contain ".."')
  .refine((bucket) => !ipAddressPattern.test(bucket), 'must not look like an IP address');

const booleanText = z.enum(['true', 'false'], 'must be true or false').transform((text) => text === 'true');
const integerText = (minimum: number, maximum: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(minimum).max(maximum));

/**
 * The query parameters of an `s3://bucket/prefix?…` blobs URL. Unknown parameters are refused
 * so a misspelt one (`forcepathstyle`) is not silently ignored.
 *
 * @example
 * ```ts
 * s3QuerySchema.parse({ endpoint: 'http://127.0.0.1:9000', forcePathStyle: 'true' });
 * ```
 */
export const s3QuerySchema = z
  .object({
    endpoint: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .refine((text) => {
        if (!URL.canParse(text)) return false;
        const url = new URL(text);
        return (
          url.pathname === '/' &&
          url.search === '' &&
          url.hash === '' &&
          url.username === '' &&
          url.password === ''
        );
      }, 'must be scheme://host[:port] only (no path, query or credentials)')
      .optional(),
    region: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a region name such as eu-west-1')
      .optional(),
    forcePathStyle: booleanText.optional(),
    partSizeMiB: integerText(5, 5 * 1024).optional(),
    queueSize: integerText(1, 64).optional(),
  })
  .strict();

/**
 * The environment variables the data plane reads. Empty values count as unset.
 *
 * @example
 * ```ts
 * const env = dataPlaneEnvSchema.parse(process.env);
 * ```
 */
export const dataPlaneEnvSchema = z.object({
  WHARF_STORE: z.string().optional(),
  WHARF_BLOBS: z.string().optional(),
  WHARF_SQLITE_WRITER_THREAD: z.string().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_SESSION_TOKEN: z.string().optional(),
  AWS_REGION: z.string().optional(),
  AWS_DEFAULT_REGION: z.string().optional(),
  AWS_ENDPOINT_URL_S3: z.string().optional(),
  AWS_ENDPOINT_URL: z.string().optional(),
});

/**
 * The variables of {@link dataPlaneEnvSchema}, as read.
 *
 * @example
 * ```ts
 * const env: DataPlaneEnv = { WHARF_STORE: 'sqlite:///var/wharf/outputs.db' };
 * ```
 */
export type DataPlaneEnv = z.infer<typeof dataPlaneEnvSchema>;
