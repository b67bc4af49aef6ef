// Pure: per-task caps on instances in flight (`loop.max_concurrency`). Deterministic: plain
// promises, resolved in the order they were asked for, so it is safe in the workflow sandbox.

/**
 * Slots per task: `run(task, work)` waits until fewer than the task's cap of its instances are
 * running, then runs `work`. Tasks without a cap run at once. Waiters start in the order they
 * asked.
 *
 * @example
 * ```ts
 * const slots = new TaskSlots({ each: 2 });
 * await Promise.all(items.map((item) => slots.run(item.task, () => runInstance(item))));
 * ```
 */
export class TaskSlots {
  readonly #caps: Readonly<Record<string, number>>;
  readonly #running = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(caps: Readonly<Record<string, number>>) {
    this.#caps = caps;
  }

  /** Instances of `task` running now. */
  running(task: string): number {
    return this.#running.get(task) ?? 0;
  }

  async run<TResult>(task: string, work: () => Promise<TResult>): Promise<TResult> {
    const cap = this.#caps[task];
    if (cap === undefined) return work();
    if (this.running(task) >= cap) {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(task) ?? [];
        queue.push(resolve);
        this.#waiting.set(task, queue);
      });
    } else {
      this.#running.set(task, this.running(task) + 1);
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.#waiting.get(task)?.shift();
      if (next !== undefined) next();
      else this.#running.set(task, this.running(task) - 1);
    }
  }
}

/**
 * The `loop.max_concurrency` of every task that sets one.
 *
 * @example
 * ```ts
 * loopCaps({ each: { loop: { type: 'map', over: '†data.list', max_concurrency: 2 } } }); // { each: 2 }
 * ```
 */
export function loopCaps(
  tasks: Readonly<Record<string, { loop?: { max_concurrency?: number | undefined } | undefined }>>,
): Record<string, number> {
  const caps: Record<string, number> = {};
  for (const [task, spec] of Object.entries(tasks)) {
    const cap = spec.loop?.max_concurrency;
    if (cap !== undefined) caps[task] = cap;
  }
  return caps;
}
