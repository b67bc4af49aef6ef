// What names data in the data plane: identities, output references, items.
// Plain JSON types; workflow-safe: no imports with side effects, no Node APIs.

/**
 * Which data plane (output store and body store) a run's outputs belong to. The client puts
 * its own in the swarm's input; it travels in every activity and child workflow input, and a
 * worker of another data plane refuses the work (`WharfWrongDataPlane`, non-retryable).
 */
export interface DataPlaneIdentity {
  /** Equal for every process that opens the same store and bodies; see `dataPlaneIdentity`. */
  id: string;
  /** Where it is, without credentials (`store …`, `, blobs …` when configured): for messages. */
  description: string;
}

/** A stored output's handle, as it travels through workflow history. */
export interface OutputRefJson {
  outId: string;
}

/**
 * The list a map loop runs over when it is stored (a task's output, a loop's results): the
 * source it was read from and the index its instances read their items through, or why the
 * source is no list. The items themselves never enter the workflow.
 */
export type MapItems = {
  /** The stored list: a task's output, or a manifest. */
  source: string;
  /** For a manifest: the instance status its entries are kept for (`ok`, `failed`). */
  status?: string;
} & ({ index: string; count: number; format: 'line' | 'json' } | { error: string });

/** What `indexItems` is asked: index the items of a stored list for a map loop. */
export interface IndexItemsInput {
  workflowId: string;
  ownerId: string;
  task: string;
  source: string;
  status?: string;
  /** More items than this is refused (the loop's `max_items`). */
  maxItems: number;
  dataPlane?: DataPlaneIdentity;
  /** A re-run's earlier runs: a source stored by one of them may be indexed like the run's own. */
  readRuns?: string[];
}

/** One part of a loop's stored results: a chunk of instance records, or the manifest naming the chunks. */
export type ManifestPartInput = {
  workflowId: string;
  ownerId: string;
  task: string;
  dataPlane?: DataPlaneIdentity;
} & (
  | { part: 'chunk'; seq: number; entries: InstanceRecord[] }
  /** The loop's manifest, or (`seq`) one folding its first chunks. */
  | { part: 'manifest'; seq?: number; chunks: { outId: string; count: number; manifest?: true }[] }
);

/**
 * One loop instance as its task's stored results (its manifest) keep it. `preview` and `message`
 * are kept only for a task with an `output` path (its value there is the list of them).
 */
export interface InstanceRecord {
  instance: number;
  status: 'ok' | 'failed' | 'cancelled';
  outIds: string[];
  bytes: number;
  exitCode?: number | null;
  preview?: string;
  /** A failed instance: the end of its stderr. */
  message?: string;
}
