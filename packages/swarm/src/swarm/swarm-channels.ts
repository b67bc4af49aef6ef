// Pure: builds the channel record of a swarm. Runs inside the workflow sandbox.
import {
  type AnyChannel,
  Barrier,
  BinaryAggregate,
  Delta,
  Ephemeral,
  LastValue,
  Messages,
  NamedBarrier,
  Topic,
} from '@wharf/channels';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { EMPTY_RESULTS, mergeTaskResults, type TaskResults, type TaskResultsUpdate } from './task-results.js';

/** Channel names used by the swarm workflow. */
export const channelNames = {
  /** `results:<task>`: the {@link TaskResults} of the task's instances (a bounded summary). */
  results: (task: string) => `results:${task}`,
  /** `join:<task>`: a NamedBarrier over the task's dependencies. */
  join: (task: string) => `join:${task}`,
  /** User channels from the definition's `channels:` section. */
  user: (name: string) => `channel:${name}`,
} as const;

/**
 * The channels of one swarm: a results aggregate per task (what its instances produced: the one
 * record of it, bounded whatever the number of instances; a loop's per-instance records are in
 * the store), a NamedBarrier per task with dependencies (a dependency arriving writes its
 * name), and the user's channels from `channels:`.
 *
 * @example
 * ```ts
 * const state = new ChannelState(swarmChannels(definition));
 * ```
 */
export function swarmChannels(definition: SwarmDefinition): Record<string, AnyChannel> {
  const channels: Record<string, AnyChannel> = {};
  for (const [task, spec] of Object.entries(definition.tasks)) {
    channels[channelNames.results(task)] = new BinaryAggregate<TaskResults>(
      (current, update) => mergeTaskResults(current, update as unknown as TaskResultsUpdate),
      { initial: EMPTY_RESULTS },
    );
    if (spec.depends_on.length > 0) channels[channelNames.join(task)] = new NamedBarrier(spec.depends_on);
  }
  for (const [name, spec] of Object.entries(definition.channels)) {
    channels[channelNames.user(name)] = userChannel(spec);
  }
  return channels;
}

function userChannel(spec: SwarmDefinition['channels'][string]): AnyChannel {
  switch (spec.type) {
    case 'last_value':
      return new LastValue();
    case 'topic':
      return new Topic();
    case 'delta':
      return new Delta();
    case 'messages':
      return new Messages();
    case 'ephemeral':
      return new Ephemeral();
    case 'barrier':
      return new Barrier(spec.expected);
    case 'named_barrier':
      return new NamedBarrier(spec.expected);
  }
}
