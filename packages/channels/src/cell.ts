import type { AnyChannel } from './channel.js';

/**
 * One channel, its value and the step bookkeeping of {@link ChannelState}.
 * @internal
 */
export interface Cell {
  readonly name: string;
  readonly channel: AnyChannel;
  /** Copies of the channel's flags, read on every write. */
  readonly allowsConcurrent: boolean;
  readonly mayThrowOnMerge: boolean;
  readonly validates: boolean;
  readonly spreadsArrays: boolean;
  value: unknown;
  view: unknown;
  viewFresh: boolean;
  /** Epoch (see ChannelState) in which the channel was last written. */
  changedEpoch: number;
  /** Epoch in which an overwrite channel last got a stamped write, and that writer's ordinal. */
  writerEpoch: number;
  writer: number;
  readonly clearsOnStep: boolean;
  /** Marks an overwrite cell written by the batch being prepared, and by which writer. */
  batchMark: number;
  batchWriter: number;
  /** Marks a cell whose merge was computed ahead by the batch being prepared, and the result. */
  stageMark: number;
  stageValue: unknown;
}
