// Workflow-safe: how a script task's stored definition is marked in the output store. Pure.

/**
 * Content type of a stored `SubagentDefinition` (what a script task's instances share, stored
 * once per run): reserved for Wharf's own writers, so no `emit` from a script, an agent or the
 * intake can store one, and gc keeps it as long as its run keeps any other output.
 *
 * @example
 * ```ts
 * record.contentType === subagentDefinitionContentType; // a run's stored definition
 * ```
 */
export const subagentDefinitionContentType = 'application/vnd.wharf.subagent-definition+json';
