import type { Reference } from '@wharf/context-resolver';

/** One destination a task's `output` writes. */
export interface OutputWriter {
  readonly task: string;
  readonly reference: Reference;
  /** The writer is a loop: what it writes is the stored list of its instances' values. */
  readonly looped: boolean;
  /** Its place among the writers added, in document order. */
  readonly index: number;
}

/**
 * One `†` path (`†data.a.b` is `a` then `b` under the `data` root) with the writers of exactly
 * that path and every writer below it, each list in document order.
 */
export interface OutputPathNode {
  readonly children: ReadonlyMap<string, OutputPathNode>;
  /** Writers of exactly this path. */
  readonly writers: readonly OutputWriter[];
  /** The first writer of exactly this path that is a loop, and the first that is not. */
  readonly firstLooped?: OutputWriter | undefined;
  readonly firstPlain?: OutputWriter | undefined;
  /** Writers of a path strictly below this one. */
  readonly below: readonly OutputWriter[];
}

interface MutableNode {
  children: Map<string, MutableNode>;
  writers: OutputWriter[];
  firstLooped?: OutputWriter;
  firstPlain?: OutputWriter;
  below: OutputWriter[];
}

/**
 * The output destinations of a definition's tasks as a tree of paths per reference kind, so
 * that the writers of a path, of the paths above it and of those below it are found by
 * walking the path, whatever the number of writers: the definition checks stay linear in its
 * size. Adding a writer costs the length of its path.
 *
 * @example
 * ```ts
 * const tree = new OutputPathTree();
 * tree.add('fetch', { kind: 'data', path: ['report'] }, false);
 * tree.along({ kind: 'data', path: ['report', 'title'] }).length; // 2 (†data, †data.report)
 * ```
 */
export class OutputPathTree {
  readonly #roots = new Map<string, MutableNode>();
  #count = 0;

  /** Whether no writer was added. */
  get empty(): boolean {
    return this.#count === 0;
  }

  add(task: string, reference: Reference, looped: boolean): void {
    const writer: OutputWriter = { task, reference, looped, index: this.#count++ };
    let node = childOf(this.#roots, reference.kind);
    for (const segment of reference.path) {
      node.below.push(writer);
      node = childOf(node.children, segment);
    }
    node.writers.push(writer);
    if (looped) node.firstLooped ??= writer;
    else node.firstPlain ??= writer;
  }

  /**
   * The nodes of `reference`'s kind root and of each leading part of its path, as far as any
   * writer's path goes: `along(r)[d]` is the path of the first `d` segments. Its length is
   * `r.path.length + 1` when some writer writes `r` or below it.
   */
  along(reference: Reference): OutputPathNode[] {
    const nodes: OutputPathNode[] = [];
    let node = this.#roots.get(reference.kind);
    for (let depth = 0; node !== undefined; depth++) {
      nodes.push(node);
      if (depth === reference.path.length) break;
      node = node.children.get(reference.path[depth] as string);
    }
    return nodes;
  }
}

/** The node under `name`, added empty when missing. */
function childOf(nodes: Map<string, MutableNode>, name: string): MutableNode {
  let node = nodes.get(name);
  if (node === undefined) {
    node = { children: new Map(), writers: [], below: [] };
    nodes.set(name, node);
  }
  return node;
}
