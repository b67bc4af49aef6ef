import type { OutputEvent, OutputStore } from '../types.js';

/** The store with `emit` held until `open()`; `entered` settles once `count` emits wait. */
export function gatedStore(store: OutputStore, count: number) {
  let waiting = 0;
  let open!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const enteredAll = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const gated = new Proxy(store, {
    get(target, property) {
      if (property === 'emit') {
        return async (event: OutputEvent) => {
          waiting += 1;
          if (waiting === count) entered();
          await gate;
          return target.emit(event);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: gated, open, entered: enteredAll };
}
