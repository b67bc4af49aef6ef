import type { TaskOutput } from './schemas.js';

/** A task output for tests, with neutral defaults. */
export function outputFixture(taskId: string, fields: Partial<TaskOutput> = {}): TaskOutput {
  const content = fields.content ?? `output of ${taskId}`;
  return {
    taskId,
    outputType: 'stdout',
    content,
    originalSize: Buffer.byteLength(content),
    truncated: false,
    strategy: 'tail',
    relevanceScore: 0,
    completedAt: 0,
    lastAccessed: 0,
    dependedBy: [],
    ...fields,
  };
}
