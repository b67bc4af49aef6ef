import { isMap, isSeq, type LineCounter, type Node } from 'yaml';
import type { SwarmIssue } from './swarm-definition-error.js';

/**
 * Finds the line and column of a field path in a parsed YAML document. Each mapping is
 * indexed by key on first use, so locating many issues stays linear in the document size.
 *
 * @example
 * ```ts
 * new YamlLocator(document.contents, lineCounter).locate({ path: 'tasks.a', message: 'x' }, ['tasks', 'a']);
 * ```
 */
export class YamlLocator {
  readonly #root: Node | null;
  readonly #lineCounter: LineCounter;
  readonly #indexes = new WeakMap<Node, Map<unknown, Node>>();

  constructor(root: Node | null, lineCounter: LineCounter) {
    this.#root = root;
    this.#lineCounter = lineCounter;
  }

  /** The issue with the line and column of `keys` (or of its deepest existing part). */
  locate(issue: SwarmIssue, keys: readonly PropertyKey[]): SwarmIssue {
    const offset = this.#deepest(keys)?.range?.[0];
    if (offset === undefined) return issue;
    const position = this.#lineCounter.linePos(offset);
    return { ...issue, line: position.line, column: position.col };
  }

  #deepest(keys: readonly PropertyKey[]): Node | null {
    let node = this.#root;
    for (const key of keys) {
      const child = this.#child(node, typeof key === 'symbol' ? String(key) : key);
      if (child === undefined) break;
      node = child;
    }
    return node;
  }

  #child(node: Node | null, key: string | number): Node | undefined {
    if (isSeq(node)) {
      const item = typeof key === 'number' ? node.items[key] : undefined;
      return item !== null && typeof item === 'object' ? (item as Node) : undefined;
    }
    if (!isMap(node)) return undefined;
    let index = this.#indexes.get(node);
    if (index === undefined) {
      index = new Map();
      for (const pair of node.items) {
        const keyNode = pair.key as { value?: unknown } | null;
        const name =
          keyNode !== null && typeof keyNode === 'object' && 'value' in keyNode ? keyNode.value : pair.key;
        if (!index.has(name) && pair.value !== null && typeof pair.value === 'object')
          index.set(name, pair.value as Node);
      }
      this.#indexes.set(node, index);
    }
    return index.get(key) ?? index.get(String(key));
  }
}
