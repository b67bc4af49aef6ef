/**
 * A read-only array over the first `length` items of an append-only list: made in O(1),
 * without copying. It is an array to every reader (`Array.isArray`, indexing, `length`,
 * iteration, `map`, `slice`, `JSON.stringify`, …), but every attempt to change it (assign,
 * `push`, `splice`, `delete`, `defineProperty`, `Object.freeze`, …) fails with a
 * `TypeError` in strict code (and is ignored in sloppy code), so it cannot change the list.
 * Because the list is only ever appended to, a view keeps showing the same items after
 * later appends: it has its own `length`.
 *
 * The items are handed out as they are: make them immutable first (channels hold sealed,
 * frozen JSON). The owner must never change or remove an item below `length`; a list that
 * needs that (a reset) is replaced by a new one instead.
 *
 * Reading an item through the view costs more than reading a plain array (each access goes
 * through a proxy trap); a reader that walks a long list often can `slice()` it once into a
 * plain array of its own. `console.log` and `util.inspect` print its items, as for an array.
 *
 * @param items - the append-only list; only its first `length` items are visible.
 * @param length - how many items the view shows (at most `items.length`).
 * @example
 * ```ts
 * const list = ['a', 'b'];
 * const view = appendOnlyView(list, list.length);
 * list.push('c');
 * view.length; // 2: the view still shows ['a', 'b']
 * (view as string[]).push('x'); // TypeError
 * ```
 */
export function appendOnlyView<TItem>(items: readonly TItem[], length: number): readonly TItem[] {
  const target: TItem[] = [];
  Object.defineProperty(target, inspectCustom, { value: inspectItems });
  return new Proxy<TItem[]>(target, new AppendOnlyViewHandler(items, length)) as readonly TItem[];
}

/**
 * The key under which Node's `util.inspect` (and so `console.log`) looks for a custom
 * formatter, named through the global symbol registry: no `node:` import, nothing but plain
 * JavaScript, so the package stays zero-dependency and safe in the workflow sandbox.
 */
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

/**
 * A view's custom formatter: `util.inspect` reads it from the proxy's (empty) target, whose
 * items it would print as `[]`, and calls it on the view itself, so a plain copy of the
 * items is printed instead.
 */
function inspectItems(this: readonly unknown[]): unknown[] {
  return Array.prototype.slice.call(this);
}

/**
 * The proxy handler of {@link appendOnlyView}: answers the index and `length` reads from the
 * list, everything else (the array methods, the inspect formatter) from an extensible array
 * target without items, and refuses every change. The target stays extensible and without
 * items so the proxy invariants hold for the index properties it reports.
 */
class AppendOnlyViewHandler<TItem> implements ProxyHandler<TItem[]> {
  readonly #items: readonly TItem[];
  readonly #length: number;

  constructor(items: readonly TItem[], length: number) {
    this.#items = items;
    this.#length = length;
  }

  get(target: TItem[], key: string | symbol, receiver: unknown): unknown {
    if (typeof key === 'string') {
      const index = this.#indexOf(key);
      if (index >= 0) return this.#items[index];
      if (key === 'length') return this.#length;
    }
    return Reflect.get(target, key, receiver);
  }

  has(target: TItem[], key: string | symbol): boolean {
    if (typeof key === 'string' && this.#indexOf(key) >= 0) return true;
    return Reflect.has(target, key);
  }

  ownKeys(target: TItem[]): (string | symbol)[] {
    const keys: (string | symbol)[] = new Array(this.#length);
    for (let index = 0; index < this.#length; index++) keys[index] = String(index);
    for (const key of Reflect.ownKeys(target)) keys.push(key);
    return keys;
  }

  getOwnPropertyDescriptor(target: TItem[], key: string | symbol): PropertyDescriptor | undefined {
    if (typeof key === 'string') {
      const index = this.#indexOf(key);
      // Reported configurable: the target does not have the property (a proxy invariant).
      if (index >= 0)
        return { value: this.#items[index], writable: false, enumerable: true, configurable: true };
      if (key === 'length')
        return { value: this.#length, writable: true, enumerable: false, configurable: false };
    }
    return Reflect.getOwnPropertyDescriptor(target, key);
  }

  set(): boolean {
    return false;
  }

  defineProperty(): boolean {
    return false;
  }

  deleteProperty(): boolean {
    return false;
  }

  setPrototypeOf(): boolean {
    return false;
  }

  preventExtensions(): boolean {
    return false;
  }

  /** The item index `key` names (a canonical array index below the length), or -1. */
  #indexOf(key: string): number {
    const first = key.charCodeAt(0);
    if (first < 48 || first > 57) return -1;
    const index = Number(key);
    if (index >= this.#length || !Number.isInteger(index) || String(index) !== key) return -1;
    return index;
  }
}
