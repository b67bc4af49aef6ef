import { setTimeout as sleep } from 'node:timers/promises';
import type { SwarmProgress, SwarmResult } from '@wharf/orchestrator';
import type { WharfClient } from '@wharf/orchestrator/client';
import type { OutputStore } from '@wharf/output-store';
import { AnswerLines } from './answer-lines.js';
import { LiveText, type LiveTextOptions } from './live-text.js';
import type { CliIo } from './output.js';
import { changedLines, type ProgressViewOptions, progressLines } from './progress-view.js';
import { terminalSafeLine } from './terminal-safe.js';

/** Options of {@link followRun}. */
export interface FollowRunOptions extends ProgressViewOptions {
  /** How often progress is read. Default 500 ms. */
  intervalMs?: number;
  /**
   * How long a read may go unanswered before it is said (`cannot read progress (no answer for
   * 3 s)`): the client waits through a short server outage rather than failing the read, and
   * that wait is not left silent. Default 3,000 ms.
   */
  silentMs?: number;
  /** The swarm's activities that wait for a retry, one line per failure (`retryingLines`); read every 5 s, each new set printed once. */
  retrying?: () => Promise<string[]>;
  /**
   * The run's store: running agents' answers are shown as they are written (from the streams
   * their heartbeats name): on a terminal the end of each under its agent's line, elsewhere the
   * text itself, each line led by its writer (`AnswerLines`). Absent: no live text.
   */
  store?: OutputStore;
  /** How the answers are followed (see `LiveText`). */
  liveText?: LiveTextOptions;
}

/**
 * `wharf run --follow`: redraws the task table (on a terminal; elsewhere one line per change)
 * until `until` settles, then, if the swarm ended (`result` resolved), draws it once more from
 * its result: a swarm that ends between two reads (an approved task that runs in a moment)
 * still shows its last lines.
 *
 * @example
 * ```ts
 * await followRun(wharf, workflowId, { result, until: Promise.race([result, interrupted]), io });
 * ```
 */
export async function followRun(
  wharf: Pick<WharfClient, 'progress'>,
  workflowId: string,
  run: { result: Promise<SwarmResult>; until: Promise<unknown>; io: CliIo },
  options: FollowRunOptions = {},
): Promise<void> {
  const { io } = run;
  let finished = false;
  const settle = () => {
    finished = true;
  };
  void run.until.then(settle, settle);
  const seen = new Map<string, string>();
  let drawn = 0;
  let last: SwarmProgress | undefined;
  const answers = options.store === undefined || io.isTTY ? undefined : new AnswerLines(io.write ?? io.out);
  const print = (line: string) => (answers === undefined ? io.out(line) : answers.line(line));
  const draw = (progress: SwarmProgress) => {
    last = progress;
    if (io.isTTY) {
      const width = Math.max(20, (process.stdout.columns || 100) - 12);
      const lines = progressLines(progress, Date.now(), {
        ...options,
        ...(live === undefined ? {} : { answer: (stream: string) => live?.lastLine(stream, width) }),
      });
      if (drawn > 0) io.out(`\u001b[${drawn}A\u001b[0J`.trimEnd());
      io.out(lines.join('\n'));
      drawn = lines.length + 1;
    } else {
      for (const line of changedLines(progress, seen, options)) print(line);
    }
  };
  // On a terminal new text redraws the table (at most every 100 ms); elsewhere it is written as it comes.
  let redraw: NodeJS.Timeout | undefined;
  const live =
    options.store === undefined
      ? undefined
      : new LiveText(
          options.store,
          {
            text: (name, text) => {
              if (answers !== undefined) answers.text(name, text);
              else
                redraw ??= setTimeout(() => {
                  redraw = undefined;
                  if (last !== undefined && !finished) draw(last);
                }, 100);
            },
            restarted: (name, attempt, previous) => {
              answers?.end();
              io.err(
                `wharf: ${name}'s answer starts again on attempt ${attempt} (attempt ${previous.attempt} ${previous.state}${previous.reason === undefined ? '' : `: ${terminalSafeLine(previous.reason)}`})`,
              );
            },
          },
          options.liveText,
        );
  // A read that fails (the server or every worker out of reach) is said once, not hidden: the
  // wait goes on, and the table comes back when a read does.
  let unreadable: string | undefined;
  let retryingReadAt = 0;
  let retryingShown = '';
  const silentMs = options.silentMs ?? 3_000;
  const say = (why: string) => {
    if (why !== unreadable && !finished) io.err(`wharf: cannot read progress (${why}); retrying`);
    unreadable = why;
  };
  while (!finished) {
    const read = wharf.progress(workflowId).catch((error: unknown) => {
      say(unreadableReason(error));
      return undefined;
    });
    const silence = new AbortController();
    void sleep(silentMs, undefined, { signal: silence.signal }).then(
      () => say(`no answer for ${Math.round(silentMs / 1000)} s`),
      () => {},
    );
    const progress = await read.finally(() => silence.abort());
    if (progress !== undefined && unreadable !== undefined) {
      io.err('wharf: progress readable again');
      unreadable = undefined;
    }
    if (progress !== undefined && !finished) {
      draw(progress);
      live?.update(progress);
    }
    if (options.retrying !== undefined && Date.now() - retryingReadAt >= 5_000 && !finished) {
      retryingReadAt = Date.now();
      const lines = await options.retrying().catch(() => undefined);
      const text = lines?.join('\n');
      if (text !== undefined && text !== retryingShown) {
        for (const line of lines ?? []) io.err(`wharf: ${line}`);
        if (text === '' && retryingShown !== '') io.err('wharf: no activity is retrying');
        retryingShown = text;
      }
    }
    await Promise.race([sleep(options.intervalMs ?? 500), run.until.catch(() => {})]);
  }
  const result = await Promise.race([run.result, run.until.then(() => undefined)]).catch(() => undefined);
  if (redraw !== undefined) clearTimeout(redraw);
  // The answers' last chunks (their steps have ended: their streams are sealed) before the last table.
  if (live !== undefined) {
    await live.settle(result === undefined ? 0 : 2_000);
    answers?.end();
  }
  if (result !== undefined)
    draw({ swarm: result.swarm, status: result.status, step: 0, tasks: result.tasks });
}

/** The first line of a failed read's message, without the gRPC status prefix (`14 UNAVAILABLE: `). */
export function unreadableReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').replace(/^\d+ [A-Z_]+: /, '').slice(0, 300) || 'no answer';
}
