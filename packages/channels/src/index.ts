// The JSON value type every channel holds is @wharf/common's; it is re-exported here so a
// channels user names it without depending on that package.
export type { JsonObject, JsonValue } from '@wharf/common';
export { Barrier } from './barrier.js';
export { BinaryAggregate, type BinaryAggregateOptions } from './binary-aggregate.js';
export type {
  AnyChannel,
  Channel,
  ChannelRecord,
  ChannelValue,
  ChannelWrite,
  UpdateList,
  UpdateRecord,
} from './channel.js';
export {
  ChannelError,
  type ChannelErrorCode,
  InvalidConcurrentUpdateError,
  InvalidUpdateError,
  NotJsonError,
  SnapshotError,
  UnknownChannelError,
} from './channel-error.js';
export { ChannelSet } from './channel-set.js';
export { ChannelState } from './channel-state.js';
export { ChannelUpdate, type ChannelUpdateJson, type ChannelUpdateOptions } from './channel-update.js';
export { Delta, type DeltaOptions } from './delta.js';
export { Ephemeral } from './ephemeral.js';
export { foldSuperstep } from './fold-superstep.js';
export { adoptJsonList, isSealedJson, sealJson, sealJsonList } from './json-value.js';
export { LastValue } from './last-value.js';
export { type Message, Messages } from './messages.js';
export { NamedBarrier } from './named-barrier.js';
export { OverwriteChannel } from './overwrite-channel.js';
export {
  type ChannelSnapshot,
  parseSnapshotText,
  type RecordedList,
  type RecordedListText,
  readSnapshotEnvelope,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
} from './snapshot.js';
export type { RestoreTextOptions } from './split-checkpoint-text.js';
export { Topic, type TopicArrays, type TopicOptions } from './topic.js';
export { Untracked } from './untracked.js';
