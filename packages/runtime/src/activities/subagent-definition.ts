import { createHash } from 'node:crypto';
import { asWharfWrite, OutputNotFoundError, type OutputStore, scopeRefusal } from '@wharf/output-store';
import type {
  StoreSubagentDefinitionInput,
  SubagentDefinition,
  SubagentInput,
  SubagentRefInput,
} from '@wharf/swarm';
import { subagentDefinitionContentType, WharfOrchestratorError } from '@wharf/swarm';
import { safeId } from './activity-identity.js';
import { listReadScope } from './stored-lists.js';

/** Definitions a worker keeps parsed, by out id: a run's tasks, and a few runs at once. */
const CACHED_DEFINITIONS = 256;

/**
 * Stores what a script task's instances share once for the run (its producer is the run, so
 * gc keeps it with the run's outputs; see `keepWithRun`). The key is the content's hash: the
 * same definition stored again, by a retry or the next run of the chain, is the same out id.
 *
 * @example
 * ```ts
 * const ref = await storeSubagentDefinition({ ownerId: 'default', workflowId: 'swarm-7', definition }, store);
 * ```
 */
export async function storeSubagentDefinition(
  input: StoreSubagentDefinitionInput,
  store: OutputStore,
): Promise<string> {
  const text = JSON.stringify(input.definition);
  const hash = createHash('sha256').update(text).digest('hex');
  const ref = await store.emit(
    asWharfWrite({
      producer: {
        ownerId: safeId(input.ownerId),
        runId: safeId(input.workflowId),
        spawnId: safeId(`${input.definition.task}.definition`),
        agent: 'wharf',
      },
      content: { kind: 'text', text },
      contentType: subagentDefinitionContentType,
      idempotencyKey: `definition/${hash}`,
      name: `${input.definition.task} definition`,
      labels: { 'wharf.task': input.definition.task },
    }),
  );
  return ref.outId;
}

/** A stored definition as a worker keeps it: parsed, with whose it is. */
interface CachedDefinition {
  definition: SubagentDefinition;
  producer: { ownerId: string; runId: string };
}

/**
 * Resolves a `runSubagent` input that names its task's stored definition into the whole
 * {@link SubagentInput}. Each definition is read once per worker (kept parsed by out id, the 256
 * most recent), and checked on every use: a ref that is missing, not a definition Wharf stored,
 * of another task, or stored outside the run's owner and lineage fails with a non-retryable
 * `DEFINITION_REF` error naming it, as a forged stored list does.
 *
 * @example
 * ```ts
 * const definitions = new SubagentDefinitions(store);
 * const input = await definitions.resolve({ ownerId, workflowId, task: 'fan', instance: 3, inputs: {}, definitionRef: 'out_…' });
 * ```
 */
export class SubagentDefinitions {
  readonly #store: OutputStore;
  readonly #cache = new Map<string, CachedDefinition>();

  constructor(store: OutputStore) {
    this.#store = store;
  }

  /** The whole input: `input` itself when it carries its definition inline. */
  async resolve(input: SubagentInput | SubagentRefInput): Promise<SubagentInput> {
    if (!('definitionRef' in input)) return input;
    const { definitionRef, ...own } = input;
    const cached = await this.#read(definitionRef);
    const refusal =
      scopeRefusal(cached.producer, listReadScope(input)) ??
      (cached.definition.task === input.task
        ? undefined
        : `it is the definition of task ${cached.definition.task}`);
    if (refusal !== undefined) throw refused(definitionRef, input.task, refusal);
    return { ...cached.definition, ...own };
  }

  async #read(outId: string): Promise<CachedDefinition> {
    const cached = this.#cache.get(outId);
    if (cached !== undefined) {
      // Most recently used last: the first key is the one to drop.
      this.#cache.delete(outId);
      this.#cache.set(outId, cached);
      return cached;
    }
    const { record, body } = await this.#store.get({ outId }).catch((error: unknown) => {
      if (OutputNotFoundError.isNotFound(error))
        throw refused(outId, undefined, `it is not in the store (${error.message})`);
      throw error;
    });
    if (record.contentType !== subagentDefinitionContentType)
      throw refused(
        outId,
        undefined,
        `it is not a definition stored by Wharf (content type ${record.contentType})`,
      );
    const definition = parseDefinition(Buffer.from(body).toString('utf8'));
    if (definition === undefined) throw refused(outId, undefined, 'its body is not a task definition');
    const entry = {
      definition,
      producer: { ownerId: record.producer.ownerId, runId: record.producer.runId },
    };
    this.#cache.set(outId, entry);
    if (this.#cache.size > CACHED_DEFINITIONS) this.#cache.delete(this.#cache.keys().next().value as string);
    return entry;
  }
}

function parseDefinition(text: string): SubagentDefinition | undefined {
  try {
    const value = JSON.parse(text) as Partial<SubagentDefinition> | null;
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof value.task !== 'string' ||
      typeof value.definition !== 'object' ||
      !Array.isArray(value.inRefs)
    )
      return undefined;
    return value as SubagentDefinition;
  } catch {
    return undefined;
  }
}

function refused(ref: string, task: string | undefined, why: string): WharfOrchestratorError {
  return new WharfOrchestratorError(
    'DEFINITION_REF',
    `${task === undefined ? '' : `task ${task}: `}definition ref ${ref} refused: ${why}`,
  );
}
