import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What the contract suite hands a store factory: a clock it controls, a temp directory that
 * must be the store's only allowed root for `file` content, a scratch directory for the
 * backend's own files, and the body limit the store must enforce.
 *
 * @example
 * ```ts
 * runOutputStoreContract('memory', (context) => new InMemoryOutputStore({
 *   now: context.now, allowedRoots: [context.allowedRoot], maxBodyBytes: context.maxBodyBytes,
 * }));
 * ```
 */
export interface ContractContext {
  readonly now: () => number;
  readonly allowedRoot: string;
  readonly scratchDir: string;
  readonly maxBodyBytes: number;
}

/**
 * A {@link ContractContext} plus the handles the suite uses to drive it.
 *
 * @example
 * ```ts
 * const harness: ContractHarness = await createContractHarness();
 * harness.advance(60_000);
 * ```
 */
export interface ContractHarness extends ContractContext {
  advance(milliseconds: number): void;
  dispose(): Promise<void>;
}

/**
 * Creates temp directories and a manual clock for one contract test.
 *
 * @example
 * ```ts
 * const harness = await createContractHarness();
 * harness.advance(1000);
 * await harness.dispose();
 * ```
 */
export async function createContractHarness(): Promise<ContractHarness> {
  const base = await mkdtemp(join(tmpdir(), 'wharf-output-contract-'));
  const allowedRoot = join(base, 'allowed');
  const scratchDir = join(base, 'scratch');
  await mkdir(allowedRoot);
  await mkdir(scratchDir);
  let current = Date.parse('2026-01-01T00:00:00.000Z');
  return {
    now: () => current,
    allowedRoot,
    scratchDir,
    maxBodyBytes: 1024 * 1024,
    advance: (milliseconds) => {
      current += milliseconds;
    },
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}
