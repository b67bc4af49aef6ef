// Workflow code: runs in the Temporal sandbox, imports only @temporalio/workflow.
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../greeting-activities.js';

const { composeGreeting } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Greets `name` through one activity. */
export async function greetingWorkflow(name: string): Promise<string> {
  const greeting = await composeGreeting(name);
  return `${greeting} (from workflow)`;
}
