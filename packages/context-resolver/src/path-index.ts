import type { JsonValue } from '@wharf/common';
import type { Reference } from './path.js';
import type { OutputMethod } from './schemas.js';
import type { LocatedWrite } from './writes.js';

/** A node of the path trie (opaque outside this module). */
export interface IndexNode {
  /** Ids of writes exactly at this node, oldest first. */
  readonly own: number[];
  /**
   * Ids of writes at this node or below it, oldest first. While the node has no children this
   * is the very array `own` is, and a write goes into it once; the first child gets the node a
   * copy of its own.
   */
  subtree: number[];
  readonly children: Map<string, IndexNode>;
  readonly parent: IndexNode | undefined;
  readonly path: readonly string[];
  /** Scratch of {@link PathIndex.commitStaged}: the node's bucket in the run it is filling, else -1. */
  slot: number;
}

function createNode(parent: IndexNode | undefined, segment: string | undefined): IndexNode {
  const path = parent === undefined || segment === undefined ? [] : [...parent.path, segment];
  const own: number[] = [];
  return { own, subtree: own, children: new Map(), parent, path, slot: -1 };
}

/** The first node whose `subtree` a write at `node` must still go into (see {@link IndexNode.subtree}). */
function firstSubtree(node: IndexNode): IndexNode | undefined {
  return node.subtree === node.own ? node.parent : node;
}

/** Below this many staged writes {@link PathIndex.commitStaged} needs no sort. */
const MIN_BATCH = 64;

/** Where a write is indexed: its kind, its instance (if any) and, optionally, its dot path text. */
export interface IndexScope {
  readonly kind: string;
  readonly instance: string | undefined;
  readonly pathText: string | undefined;
}

/**
 * Reads the value a message writes at `path` (`valueAt(message.data, path)` for every kind of
 * write, see `messageWrites`): the index keeps where each write is, not its value.
 */
export type WriteValueReader = (messageIndex: number, path: readonly string[]) => JsonValue;

/**
 * A trie of write paths per (kind, instance) scope. Each node lists the writes at it and in its
 * subtree, so the writes touching a path are found without looking at any other message:
 * resolution costs time in the number of writes that touch the path, not in the context length.
 * A write is kept as three array slots (its message, node and method), no object of its own:
 * its value is read from the message when a resolve needs it.
 *
 * @example
 * ```ts
 * const index = new PathIndex((messageIndex, path) => valueAt(messages[messageIndex].data, path));
 * index.add({ path: ['user', 'name'], method: 'set', value: 'Alex', messageIndex: 0 }, { kind: 'data' });
 * index.window({ kind: 'data', path: ['user'] }, undefined); // newest → oldest writes touching †data.user
 * ```
 */
export class PathIndex {
  /** Per write id, oldest first: the message, the trie node (whose `path` is the write's), the method. */
  readonly #messageIndices: number[] = [];
  readonly #nodes: IndexNode[] = [];
  readonly #methods: OutputMethod[] = [];
  readonly #valueAt: WriteValueReader;
  readonly #roots = new Map<string, IndexNode>();
  readonly #byPathText = new Map<string, Map<string, IndexNode>>();
  #lastKind: string | undefined;
  #lastInstance: string | undefined;
  #lastRoot: IndexNode | undefined;
  /** How many trie nodes there are, in every scope. */
  #nodeCount = 0;
  /** Writes (from the first) whose ids are in their nodes' lists; the rest are staged. */
  #listed = 0;

  constructor(valueAt: WriteValueReader) {
    this.#valueAt = valueAt;
  }

  /** Number of writes indexed. */
  get size(): number {
    return this.#messageIndices.length;
  }

  /**
   * The node of `scope.pathText` if a write with that dot path was already indexed in the scope,
   * so that appending skips parsing the path and walking the trie again.
   */
  knownNode(scope: IndexScope): IndexNode | undefined {
    if (scope.pathText === undefined) return undefined;
    return this.#byPathText.get(scopeKeyOf(scope))?.get(scope.pathText);
  }

  /**
   * The root node of a (kind, instance) scope, created when missing. The last scope asked for is
   * kept, since a run of messages mostly shares one.
   */
  root(kind: string, instance: string | undefined): IndexNode {
    if (this.#lastRoot !== undefined && kind === this.#lastKind && instance === this.#lastInstance) {
      return this.#lastRoot;
    }
    const scopeKey = scopeKeyOf({ kind, instance, pathText: undefined });
    let root = this.#roots.get(scopeKey);
    if (root === undefined) {
      root = createNode(undefined, undefined);
      this.#nodeCount++;
      this.#roots.set(scopeKey, root);
    }
    this.#lastKind = kind;
    this.#lastInstance = instance;
    this.#lastRoot = root;
    return root;
  }

  /** The child of `node` at `segment`, created when missing. */
  child(node: IndexNode, segment: string): IndexNode {
    let child = node.children.get(segment);
    if (child === undefined) {
      if (node.subtree === node.own) node.subtree = node.own.slice();
      child = createNode(node, segment);
      this.#nodeCount++;
      node.children.set(segment, child);
    }
    return child;
  }

  /**
   * Indexes the write of message `messageIndex` at `node` (from {@link PathIndex.child}) by
   * `method`; its value is whatever the reader finds at `node.path` in that message.
   */
  addAt(node: IndexNode, method: OutputMethod, messageIndex: number): void {
    this.stage(node, method, messageIndex);
    this.commitStaged();
  }

  /**
   * Takes the write of message `messageIndex` at `node` by `method` into the index, as
   * {@link PathIndex.addAt} does, but leaves it out of its nodes' lists until
   * {@link PathIndex.commitStaged} (which any other write and every read run first). Staging a
   * long run of writes and committing them once fills each node's lists one node at a time.
   */
  stage(node: IndexNode, method: OutputMethod, messageIndex: number): void {
    this.#messageIndices.push(messageIndex);
    this.#nodes.push(node);
    this.#methods.push(method);
  }

  /**
   * Puts the staged writes' ids into their nodes' lists. A long run is first sorted by node (a
   * stable counting sort over the nodes it touches, in typed arrays), so each list is appended
   * to in one go instead of every write jumping between thousands of lists: over 10,000 paths
   * the index catches up about twice as fast.
   */
  commitStaged(): void {
    const nodes = this.#nodes;
    const base = this.#listed;
    const end = nodes.length;
    this.#listed = end;
    if (end - base < MIN_BATCH) {
      for (let id = base; id < end; id++) {
        const node = nodes[id] as IndexNode;
        node.own.push(id);
        for (let at = firstSubtree(node); at !== undefined; at = at.parent) at.subtree.push(id);
      }
      return;
    }
    // Bucket every node the run touches (each write's node and the ancestors whose subtree
    // lists it goes into; at most every node there is) and count the ids each list gains.
    const touched: IndexNode[] = [];
    const ownCounts = new Int32Array(this.#nodeCount);
    const subtreeCounts = new Int32Array(this.#nodeCount);
    let pairs = 0;
    for (let id = base; id < end; id++) {
      const node = nodes[id] as IndexNode;
      if (node.slot < 0) {
        node.slot = touched.length;
        touched.push(node);
      }
      ownCounts[node.slot] = (ownCounts[node.slot] as number) + 1;
      for (let at = firstSubtree(node); at !== undefined; at = at.parent) {
        if (at.slot < 0) {
          at.slot = touched.length;
          touched.push(at);
        }
        subtreeCounts[at.slot] = (subtreeCounts[at.slot] as number) + 1;
        pairs++;
      }
    }
    // Where each bucket's ids start, then the ids in bucket order (oldest first in each).
    const buckets = touched.length;
    const ownStarts = starts(ownCounts, buckets);
    const subtreeStarts = starts(subtreeCounts, buckets);
    const ownIds = new Int32Array(end - base);
    const subtreeIds = new Int32Array(pairs);
    const ownNext = ownStarts.slice(0, buckets);
    const subtreeNext = subtreeStarts.slice(0, buckets);
    for (let id = base; id < end; id++) {
      const node = nodes[id] as IndexNode;
      const ownAt = ownNext[node.slot] as number;
      ownIds[ownAt] = id;
      ownNext[node.slot] = ownAt + 1;
      for (let at = firstSubtree(node); at !== undefined; at = at.parent) {
        const subtreeAt = subtreeNext[at.slot] as number;
        subtreeIds[subtreeAt] = id;
        subtreeNext[at.slot] = subtreeAt + 1;
      }
    }
    for (let slot = 0; slot < buckets; slot++) {
      const node = touched[slot] as IndexNode;
      pushBucket(node.own, ownIds, ownStarts, slot);
      pushBucket(node.subtree, subtreeIds, subtreeStarts, slot);
      node.slot = -1;
    }
  }

  /**
   * Indexes one write; `scope.pathText` (its dot path) is remembered as a lookup shortcut. Its
   * `value` is not kept: it must be what the reader finds at `write.path` in its message.
   */
  add(write: LocatedWrite, scope: IndexScope, known?: IndexNode): void {
    if (known !== undefined) {
      this.addAt(known, write.method, write.messageIndex);
      return;
    }
    const scopeKey = scopeKeyOf(scope);
    let byText: Map<string, IndexNode> | undefined;
    let node: IndexNode | undefined;
    if (scope.pathText !== undefined) {
      byText = this.#byPathText.get(scopeKey);
      if (byText === undefined) {
        byText = new Map();
        this.#byPathText.set(scopeKey, byText);
      }
      node = byText.get(scope.pathText);
    }
    if (node === undefined) {
      let current = this.root(scope.kind, scope.instance);
      for (const segment of write.path) current = this.child(current, segment);
      node = current;
      if (byText !== undefined && scope.pathText !== undefined) byText.set(scope.pathText, node);
    }
    this.addAt(node, write.method, write.messageIndex);
  }

  /**
   * The writes touching `reference`, newest first, up to and including the newest `set` at or
   * above the path. Visible scopes: shared, plus `instance` when given.
   */
  window(reference: Reference, instance: string | undefined): LocatedWrite[] {
    if (this.#listed < this.#nodes.length) this.commitStaged();
    const lists: { ids: number[]; cursor: number; above: boolean }[] = [];
    const scopes = instance === undefined ? [undefined] : [undefined, instance];
    for (const scope of scopes) this.#collectLists(reference, scope, lists);
    const result: LocatedWrite[] = [];
    const depth = reference.path.length;
    for (;;) {
      let best = -1;
      let bestList: (typeof lists)[number] | undefined;
      for (const list of lists) {
        const id = list.cursor >= 0 ? (list.ids[list.cursor] as number) : -1;
        if (id > best) {
          best = id;
          bestList = list;
        }
      }
      if (bestList === undefined) return result;
      bestList.cursor--;
      const path = (this.#nodes[best] as IndexNode).path;
      const method = this.#methods[best] as OutputMethod;
      const messageIndex = this.#messageIndices[best] as number;
      result.push({ path, method, value: this.#valueAt(messageIndex, path), messageIndex });
      if (method === 'set' && (bestList.above || path.length === depth)) return result;
    }
  }

  #collectLists(
    reference: Reference,
    scope: string | undefined,
    lists: { ids: number[]; cursor: number; above: boolean }[],
  ): void {
    let node = this.#roots.get(scopeKeyOf({ kind: reference.kind, instance: scope, pathText: undefined }));
    for (const segment of reference.path) {
      if (node === undefined) return;
      if (node.own.length > 0) lists.push({ ids: node.own, cursor: node.own.length - 1, above: true });
      node = node.children.get(segment);
    }
    if (node !== undefined && node.subtree.length > 0) {
      lists.push({ ids: node.subtree, cursor: node.subtree.length - 1, above: false });
    }
  }
}

/** Prefix sums of the first `buckets` counts: bucket `b` spans `[starts[b], starts[b + 1])`. */
function starts(counts: Int32Array, buckets: number): Int32Array {
  const result = new Int32Array(buckets + 1);
  for (let bucket = 0; bucket < buckets; bucket++) {
    result[bucket + 1] = (result[bucket] as number) + (counts[bucket] as number);
  }
  return result;
}

/** Appends the ids of bucket `slot` (see {@link starts}) to `list`, in order. */
function pushBucket(list: number[], ids: Int32Array, bucketStarts: Int32Array, slot: number): void {
  const stop = bucketStarts[slot + 1] as number;
  for (let at = bucketStarts[slot] as number; at < stop; at++) list.push(ids[at] as number);
}

/** Keys of shared scopes by kind: one string per kind, so map lookups reuse its cached hash. */
const sharedScopeKeys = new Map<string, string>();

function scopeKeyOf(scope: IndexScope): string {
  // Unambiguous for any strings: shared scopes start with NUL, instance scopes with a length.
  if (scope.instance === undefined) {
    let key = sharedScopeKeys.get(scope.kind);
    if (key === undefined) {
      key = `\u0000${scope.kind}`;
      // A handful of kinds in practice; a flood of made-up kinds just goes uncached.
      if (sharedScopeKeys.size < 256) sharedScopeKeys.set(scope.kind, key);
    }
    return key;
  }
  return `${scope.instance.length}\u0000${scope.instance}\u0000${scope.kind}`;
}
