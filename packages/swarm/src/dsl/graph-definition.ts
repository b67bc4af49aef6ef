/** What the graph checks read of one task; a validated `TaskDefinition` is one. */
export interface GraphTask {
  depends_on: readonly string[];
  agent?: string | undefined;
  context?:
    | { include_tasks?: readonly string[] | undefined; exclude_tasks?: readonly string[] | undefined }
    | undefined;
  inputs?: Readonly<Record<string, string>> | undefined;
  /** A `when:` condition; its references are checked like inputs. */
  when?: string | undefined;
  /** A map loop's `over` reference, checked like an input; a repeat loop's count (a loop's output is a stored list). */
  loop?: { type?: string; over?: string | undefined; count?: number | undefined } | undefined;
  output?: string | { path: string } | undefined;
}

/**
 * What the graph checks read of a definition; a validated `SwarmDefinition` is one. When
 * `agents` is undefined (it could not be read), agent names are not checked.
 */
export interface GraphDefinition {
  tasks: Readonly<Record<string, GraphTask>>;
  agents?: Readonly<Record<string, unknown>> | undefined;
  supervisor?: { agent: string } | undefined;
}
