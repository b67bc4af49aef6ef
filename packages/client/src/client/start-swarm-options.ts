import type { WorkflowHandle } from '@temporalio/client';
import type { DataPlaneIdentity, NestedRerun, RerunOrigin, ReusedResults } from '@wharf/swarm';

/** Options of `WharfClient.startSwarm`. */
export interface StartSwarmOptions {
  /** Default: `<swarm name>-<timestamp>`. */
  workflowId?: string;
  ownerId?: string;
  maxConcurrentTasks?: number;
  historyEventLimit?: number;
  waitForInputsMs?: number;
  /** Most entries the swarm's context pool keeps (see `SwarmWorkflowInput.contextPoolCap`). */
  contextPoolCap?: number;
  heartbeatTimeoutMs?: number;
  /** Directory scripts run in on the workers (e.g. the repository a swarm checks). */
  workdir?: string;
  /**
   * What a re-run carries (`WharfClient.rerun` sets these): the run it comes from (its
   * `WharfRerunOf` search attribute and `rerunOf` memo) and the results it folds instead of
   * running those tasks again; `nested`, per `swarm:` task, the re-run of its earlier child run
   * (a re-run from a task inside it).
   */
  rerun?: { of: RerunOrigin; reuse: ReusedResults; nested?: Record<string, NestedRerun> };
  /** The data plane of the swarm's outputs when it is not the client's (a re-run keeps its run's). */
  dataPlane?: DataPlaneIdentity;
}

/** A started swarm. */
export interface SwarmHandle {
  readonly workflowId: string;
  readonly firstExecutionRunId: string;
  /** The raw Temporal handle. */
  readonly handle: WorkflowHandle;
}
