import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { wharfSearchAttributeKinds } from '@wharf/workflows';

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** The server's indexed type of each kind Wharf uses. */
const indexedTypes = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
} as const;

/**
 * Registers Wharf's search attributes (`WharfSwarm`, `WharfOwner`, `WharfStatus`,
 * `WharfPendingGates`, `WharfRerunOf`) on a namespace when they are missing. The embedded dev
 * server gets them at start; use this for a server you run yourself.
 *
 * @example
 * ```ts
 * await ensureSearchAttributes(connection, 'default');
 * ```
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = (
    Object.keys(wharfSearchAttributeKinds) as (keyof typeof wharfSearchAttributeKinds)[]
  ).filter((name) => !known.has(name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((name) => [name, indexedTypes[wharfSearchAttributeKinds[name]]]),
    ),
  });
  return missing;
}
