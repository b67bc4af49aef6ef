// Pure: the names of the tools Wharf itself gives agents. Workflow-safe.

/** Tools every Wharf worker has; `agents.<name>.tools` may select them. */
export const builtinToolNames = ['shell', 'read_file', 'write_file', 'http_request'] as const;

/** Tools every agent has, whatever its `tools` say (listing them is allowed and changes nothing). */
export const alwaysOnToolNames = ['emit', 'read_input', 'get_worker_evidence', 'get_tool_output'] as const;

/**
 * The tool an agent starts another of the swarm's agents with and waits for (see
 * `agentTaskWorkflow`); selectable by `agents.<name>.tools` like a built-in.
 */
export const spawnWorkerToolName = 'spawn_worker';

/** Most `spawn_worker` calls one agent task makes unless its agent sets `max_spawns`. */
export const DEFAULT_MAX_SPAWNS = 8;
