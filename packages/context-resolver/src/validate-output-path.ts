import { ContextResolverError } from './context-resolver-error.js';
import { isJsonObject } from './json.js';
import { type OutputPlan, parseOutputPath } from './output-plan.js';
import { outputPathSchemaFragment } from './schemas.js';

/**
 * Checks an `_outputPath` chosen for a call against the tool's JSON-schema fragment for
 * `_outputPath` (or a whole parameters schema with `properties._outputPath`):
 *
 * - prescribed path: `const` must equal the path exactly;
 * - dynamic path: `pattern` (a JSON-schema regular expression) must match, and `enum`, when
 *   given, must list it.
 *
 * Returns the parsed destinations. A tool that declares no `_outputPath`, or a path its schema
 * does not allow, is an `OUTPUT_PATH_NOT_ALLOWED` error; a schema that is not a valid fragment
 * (or has a broken `pattern`) is `INVALID_SCHEMA`; a malformed path is `INVALID_EXPRESSION`.
 *
 * @example
 * ```ts
 * validateOutputPath({ type: 'string', pattern: '^†' }, '†data.user.summary'); // ok
 * validateOutputPath({ type: 'string', const: '†data.user.summary' }, '†data.other'); // throws
 * ```
 */
export function validateOutputPath(toolSchema: unknown, path: string): OutputPlan {
  const fragment =
    isJsonObject(toolSchema) && isJsonObject(toolSchema.properties)
      ? toolSchema.properties._outputPath
      : toolSchema;
  if (fragment === undefined || fragment === null || fragment === false) {
    throw new ContextResolverError(
      'OUTPUT_PATH_NOT_ALLOWED',
      `the tool declares no _outputPath; got "${path}"`,
    );
  }
  const parsed = outputPathSchemaFragment.safeParse(fragment);
  if (!parsed.success) {
    throw new ContextResolverError(
      'INVALID_SCHEMA',
      `_outputPath schema: ${parsed.error.issues[0]?.message}`,
      {
        cause: parsed.error,
      },
    );
  }
  const schema = parsed.data;
  if (schema.const !== undefined && schema.const !== path) {
    throw notAllowed(path, `the tool prescribes "${schema.const}"`);
  }
  if (schema.enum !== undefined && !schema.enum.includes(path)) {
    throw notAllowed(path, `allowed paths are ${schema.enum.map((entry) => `"${entry}"`).join(', ')}`);
  }
  if (schema.pattern !== undefined && !compile(schema.pattern).test(path)) {
    throw notAllowed(path, `it does not match the pattern /${schema.pattern}/`);
  }
  return parseOutputPath(path);
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch (error) {
    throw new ContextResolverError(
      'INVALID_SCHEMA',
      `_outputPath pattern /${pattern}/ is not a valid regular expression`,
      {
        cause: error,
      },
    );
  }
}

function notAllowed(path: string, reason: string): ContextResolverError {
  return new ContextResolverError(
    'OUTPUT_PATH_NOT_ALLOWED',
    `_outputPath "${path}" is not allowed: ${reason}`,
  );
}
