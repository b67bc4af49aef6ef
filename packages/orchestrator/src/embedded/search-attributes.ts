import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { wharfSearchAttributeKinds } from '../shared/search-attributes.js';

const { IndexedValueType } = proto.temporal.api.enums.v1;

/**
 * Registers Wharf's search attributes (`WharfSwarm`, `WharfOwner`, `WharfStatus`) on a
 * namespace when they are missing. The embedded dev server gets them at start; use this for
 * a server you run yourself.
 *
 * @example
 * ```ts
 * await ensureSearchAttributes(connection, 'default');
 * ```
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = Object.keys(wharfSearchAttributeKinds).filter((name) => !known.has(name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((name) => [name, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return missing;
}
