import { ContextResolverError } from './context-resolver-error.js';
import { type Call, callSchema } from './schemas.js';

/**
 * Validates a call's metadata (`_tool`, `_outputPath`, `_outputMethod`, `_instance`) with
 * {@link callSchema}; throws `INVALID_CALL` naming the field and the reason.
 *
 * @example
 * ```ts
 * checkCall({ _tool: 'lookup', _outputMethod: 'upsert' }); // throws: call._outputMethod: Invalid option…
 * ```
 */
export function checkCall(call: unknown): Call {
  const checked = callSchema.safeParse(call);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  const where = issue?.path.length ? `call.${issue.path.join('.')}` : 'call';
  throw new ContextResolverError('INVALID_CALL', `${where}: ${issue?.message ?? 'invalid'}`, {
    cause: checked.error,
  });
}
