import { activityInfo } from '@temporalio/activity';

/** Composes a greeting and says which task queue ran it. */
export async function composeGreeting(name: string): Promise<string> {
  return `Hello, ${name}, from ${activityInfo().taskQueue}`;
}
