// Pure: how tasks write the user's channels (`channels:` in swarm.yaml) and how inputs read them.
// Deterministic (runs in the workflow sandbox).
import type { ChannelState } from '@wharf/channels';
import { type JsonValue, parseOutputPath, type Reference, type Resolution } from '@wharf/context-resolver';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { channelNames } from './swarm-channels.js';
import type { TaskOutputValue } from './swarm-context.js';

/** The reference kind of the user's channels: `†channels.<name>`. */
export const CHANNELS_KIND = 'channels';

/** The channels one task's output writes: on success, and (right side of `||`) on failure. */
export interface ChannelTargets {
  success: string[];
  failure: string[];
}

/**
 * Per task, the user channels its `output` names (`†channels.<name>`); tasks that write none
 * are left out.
 *
 * @example
 * ```ts
 * channelTargets(definition); // Map { 'scan' => { success: ['findings'], failure: [] } }
 * ```
 */
export function channelTargets(definition: SwarmDefinition): Map<string, ChannelTargets> {
  const targets = new Map<string, ChannelTargets>();
  for (const [task, spec] of Object.entries(definition.tasks)) {
    if (spec.output === undefined) continue;
    const plan = parseOutputPath(typeof spec.output === 'string' ? spec.output : spec.output.path);
    const names = (references: readonly Reference[]) =>
      references
        .filter((reference) => reference.kind === CHANNELS_KIND && reference.path.length > 0)
        .map((reference) => reference.path[0] as string);
    const entry = { success: names(plan.success), failure: names(plan.failure) };
    if (entry.success.length + entry.failure.length > 0) targets.set(task, entry);
  }
  return targets;
}

/**
 * What one finished instance writes to a user channel, by the channel's type: the task's output
 * value for `last_value`, `topic` and `ephemeral`; that value with `id` (the instance label) for
 * `messages`; `{ <task>: outId }` for `named_barrier`; the instance label for `barrier`; its
 * output bytes for `delta`.
 *
 * @example
 * ```ts
 * channelWrite({ type: 'delta' }, { task: 'scan', label: 'scan#2', value }); // value.bytes
 * ```
 */
export function channelWrite(
  spec: SwarmDefinition['channels'][string],
  writer: { task: string; label: string; value: TaskOutputValue & { message?: string } },
): unknown {
  const { value } = writer;
  switch (spec.type) {
    case 'delta':
      return value.bytes;
    case 'messages':
      return { ...value, id: writer.label };
    case 'named_barrier':
      return { [writer.task]: value.outId };
    case 'barrier':
      return writer.label;
    default:
      return value;
  }
}

/**
 * Resolves `†channels.<name>.<path…>` from the channel state: not found while the channel is
 * not ready (empty, or a barrier still waiting), or when the path is not in its value.
 *
 * @example
 * ```ts
 * readChannel(state, definition, ['findings', '0', 'outId']); // { found: true, value: 'out_…' }
 * ```
 */
export function readChannel(
  state: ChannelState,
  definition: SwarmDefinition,
  path: readonly string[],
): Resolution {
  const [name, ...rest] = path;
  if (name === undefined || !Object.hasOwn(definition.channels, name)) return { found: false };
  const channel = channelNames.user(name);
  if (!state.isReady(channel)) return { found: false };
  let value: unknown = state.get(channel);
  for (const key of rest) {
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(key) && Number(key) < value.length) {
      value = value[Number(key)];
    } else if (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.hasOwn(value, key)
    ) {
      value = (value as Record<string, unknown>)[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: JSON.parse(JSON.stringify(value ?? null)) as JsonValue };
}
