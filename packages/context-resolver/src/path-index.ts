import type { JsonValue } from './json.js';
import type { Reference } from './path.js';
import type { OutputMethod } from './schemas.js';
import type { LocatedWrite } from './writes.js';

/** A node of the path trie (opaque outside this module). */
export interface IndexNode {
  /** Ids of writes exactly at this node, oldest first. */
  readonly own: number[];
  /** Ids of writes at this node or below it, oldest first. */
  readonly subtree: number[];
  readonly children: Map<string, IndexNode>;
  readonly parent: IndexNode | undefined;
  readonly path: readonly string[];
}

function createNode(parent: IndexNode | undefined, segment: string | undefined): IndexNode {
  const path = parent === undefined || segment === undefined ? [] : [...parent.path, segment];
  return { own: [], subtree: [], children: new Map(), parent, path };
}

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
      child = createNode(node, segment);
      node.children.set(segment, child);
    }
    return child;
  }

  /**
   * Indexes the write of message `messageIndex` at `node` (from {@link PathIndex.child}) by
   * `method`; its value is whatever the reader finds at `node.path` in that message.
   */
  addAt(node: IndexNode, method: OutputMethod, messageIndex: number): void {
    const id = this.#messageIndices.length;
    this.#messageIndices.push(messageIndex);
    this.#nodes.push(node);
    this.#methods.push(method);
    node.own.push(id);
    for (let at: IndexNode | undefined = node; at !== undefined; at = at.parent) at.subtree.push(id);
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
