// Which `patched('wharf-…')` behaviours a swarm run takes, asked once at its start.
// Deterministic: the markers are recorded in the order below, before any other command.
import { patched } from '@temporalio/workflow';
import { usesControlFlow } from '../control/uses-control-flow.js';
import type { SwarmWorkflowInput } from '../shared/types.js';
import { DEFAULT_CONTEXT_POOL_CAP } from '../swarm/context-pool-state.js';

/** The patched behaviours of one swarm run (`wharf-durable-agent` is asked lazily, per agent task). */
export interface SwarmPatches {
  /** `wharf-context-pool`: contexts are chosen, pruned and measured (local activities). */
  withContext: boolean;
  /** `wharf-skip-unresolvable`: a task whose inputs can no longer be written is skipped. */
  skipUnresolvable: boolean;
  /** `wharf-split-superstep`: a wide superstep is split across runs when history grows. */
  splitSuperstep: boolean;
  /** `wharf-user-channels`: `†channels.<name>` outputs fold into the user's channels. */
  userChannels: boolean;
  /** `wharf-control-flow`: `when:`, map loops, `loop.max_concurrency` and `approval:` gates. */
  controlFlow: boolean;
  /** `wharf-pool-cap`: the context pool's cap; undefined when the pool is carried whole. */
  poolCap: number | undefined;
  /** `wharf-cleanup-strategy`: `limits.cleanup_strategy` applies to the context pool. */
  cleanupPool: boolean;
}

/**
 * Asks the patches of a swarm run, in the order runs in flight recorded them. Conditional
 * patches are asked only of definitions that use the feature, so the histories of other
 * swarms stay as they were.
 *
 * @example
 * ```ts
 * const patches = swarmPatches(input);
 * const run = new SwarmRun({ definition, ...patches });
 * ```
 */
export function swarmPatches(input: SwarmWorkflowInput): SwarmPatches {
  const { definition } = input;
  // Runs started before Wharf chose contexts replay without them (no local activities).
  const withContext = patched('wharf-context-pool');
  // Runs started before Wharf skipped tasks whose inputs can no longer be written (the untaken
  // side of a `||` output) replay with the old planning: such a task failed, and so did the swarm.
  const skipUnresolvable = patched('wharf-skip-unresolvable');
  // Runs started before Wharf split a wide superstep across runs replay running it whole.
  const splitSuperstep = patched('wharf-split-superstep');
  // Runs started before Wharf folded `†channels.<name>` outputs into the user's channels wrote
  // and read them in the context; only swarms that declare channels ask.
  const userChannels = Object.keys(definition.channels).length > 0 && patched('wharf-user-channels');
  // `when:`, map loops, `loop.max_concurrency` and `approval:` gates. Asked only of definitions
  // that use them, so the histories of other swarms stay as they were.
  const controlFlow = usesControlFlow(definition) && patched('wharf-control-flow');
  // Runs started before Wharf capped the context pool carry it whole.
  const poolCap = patched('wharf-pool-cap')
    ? Math.max(1, Math.floor(input.contextPoolCap ?? DEFAULT_CONTEXT_POOL_CAP))
    : undefined;
  // Runs started before Wharf applied `limits.cleanup_strategy` kept the whole pool; only
  // swarms that set one ask.
  const cleanupPool =
    withContext && definition.limits?.cleanup_strategy !== undefined && patched('wharf-cleanup-strategy');
  return { withContext, skipUnresolvable, splitSuperstep, userChannels, controlFlow, poolCap, cleanupPool };
}
