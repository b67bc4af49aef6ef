import { z } from 'zod';

const positive = z.number().int().positive();
const absolutePath = z.string().regex(/^\//, 'must be an absolute path');

/**
 * A `sandbox` block (swarm-wide, or per task over the swarm's, key by key): how the processes
 * of a task (a script, an agent's `shell` commands) are confined where the worker runs a
 * sandbox. Every value is bounded by the worker's ceiling (`WHARF_SANDBOX_*`): a task asking
 * for more is refused.
 *
 * @example
 * ```ts
 * sandboxSchema.parse({ network: 'allow', max_memory_bytes: 2147483648, filesystem: { hide: ['/srv/keys'] } });
 * ```
 */
export const sandboxSchema = z.strictObject({
  /** `none` (default): no network but the intake, over a Unix socket; `allow`: the host's network. */
  network: z.enum(['none', 'allow']).optional(),
  filesystem: z
    .strictObject({
      /** `read-only` (default): the whole file system, read-only; `minimal`: only `/usr`, `/bin`, `/lib*`, `/etc`. */
      root: z.enum(['read-only', 'minimal']).optional(),
      /** Absolute paths replaced by an empty directory. */
      hide: z.array(absolutePath).optional(),
      /** Absolute paths shown read-only (under `root: minimal`, or inside a hidden path). */
      read_only: z.array(absolutePath).optional(),
    })
    .optional(),
  /** Data segment limit of each process (what `malloc` and JS heaps take), bytes. */
  max_memory_bytes: positive.optional(),
  /** Most processes (not applied where the worker runs as root). */
  max_processes: positive.optional(),
  /** CPU time of each process, seconds. */
  max_cpu_seconds: positive.optional(),
});

/** A validated `sandbox` block. */
export type SandboxSettings = z.output<typeof sandboxSchema>;

/**
 * A task's sandbox settings: the swarm's with the task's own over them, key by key (the
 * `filesystem` keys too; `hide` and `read_only` lists are joined).
 *
 * @example
 * ```ts
 * mergeSandboxSettings({ network: 'none', max_processes: 64 }, { network: 'allow' });
 * // { network: 'allow', max_processes: 64 }
 * ```
 */
export function mergeSandboxSettings(
  swarm: SandboxSettings | undefined,
  task: SandboxSettings | undefined,
): SandboxSettings {
  const filesystem =
    swarm?.filesystem === undefined && task?.filesystem === undefined
      ? undefined
      : {
          ...swarm?.filesystem,
          ...task?.filesystem,
          hide: [...(swarm?.filesystem?.hide ?? []), ...(task?.filesystem?.hide ?? [])],
          read_only: [...(swarm?.filesystem?.read_only ?? []), ...(task?.filesystem?.read_only ?? [])],
        };
  return { ...swarm, ...task, ...(filesystem === undefined ? {} : { filesystem }) };
}
