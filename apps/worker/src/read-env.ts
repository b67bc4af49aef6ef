import type { z } from 'zod';
import { WorkerConfigError } from './worker-config-error.js';

/**
 * What a failed parse of the environment says: one line per issue (`  NAME: why`) and the
 * variables named, each once.
 *
 * @example
 * ```ts
 * const parsed = schema.safeParse(env);
 * if (!parsed.success) console.error(envIssues(parsed.error).lines.join('\n'));
 * ```
 */
export function envIssues(error: z.ZodError): { lines: string[]; variables: string[] } {
  return {
    lines: error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`),
    variables: [...new Set(error.issues.map((issue) => String(issue.path[0])))],
  };
}

/**
 * The environment as `schema` reads it, or a {@link WorkerConfigError} (`INVALID_ENV`) naming
 * every bad variable and why, headed `Invalid <subject> environment:`.
 *
 * @example
 * ```ts
 * const config = readEnv(codecServerEnvSchema, process.env, 'codec server');
 * ```
 */
export function readEnv<TSchema extends z.ZodType>(
  schema: TSchema,
  env: Readonly<Record<string, string | undefined>>,
  subject: string,
): z.output<TSchema> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const { lines, variables } = envIssues(parsed.error);
  throw new WorkerConfigError('INVALID_ENV', `Invalid ${subject} environment:\n${lines.join('\n')}`, {
    cause: parsed.error,
    variables,
  });
}
