import { Annotation, END, Send, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { captureProcess, type ProcessSpawner } from '@wharf/stdio-limits';
import { itemEnvironment } from './item-log.js';

/** What {@link runLangGraphFanOut} runs. */
export interface LangGraphFanOutOptions {
  /** Items fanned out with `Send`, one node run each (on resume: the same as the first start). */
  items: number;
  /** The shell script each node runs, with `WHARF_INSTANCE` set to its item's index. */
  script: string;
  /** The shell that runs it (`bash`, as a Wharf script's default). */
  shell: string;
  /** Where the thread is checkpointed: the SQLite saver's file, or the PostgreSQL saver's database. */
  saver: LangGraphSaver;
  threadId: string;
  /** Nodes run at once (`maxConcurrency`). */
  concurrency: number;
  /** Starts the scripts (a `SpawnServer`, as the Wharf worker's default). */
  spawner: ProcessSpawner;
  /** Resume the thread from its last checkpoint instead of starting it. */
  resume: boolean;
}

/** The checkpointer of the graph: `SqliteSaver` on a file, or `PostgresSaver` on a database URL. */
export type LangGraphSaver = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** What the graph's final state holds. */
export interface LangGraphFanOutResult {
  /** Outputs in the final state (one per node run whose writes the state took). */
  outputs: number;
  /** Distinct outputs among them. */
  distinctOutputs: number;
}

/**
 * A LangGraph.js graph that fans `items` out with `Send` to one node, each running `script`
 * through `captureProcess` (default limits, the given spawner) and returning its stdout into a
 * list channel; checkpointed by the SQLite saver into a file or by the PostgreSQL saver into a
 * database (its tables made first, as `setup()` does, idempotent). Starting it or resuming
 * the thread (`invoke(null)` with the same thread id: the nodes whose writes the saver kept are
 * not run again) runs it to the end.
 *
 * @example
 * ```ts
 * const spawner = new SpawnServer();
 * const result = await runLangGraphFanOut({ items: 100, script: 'echo "$WHARF_INSTANCE"', shell: 'bash',
 *   saver: { kind: 'sqlite', path: '/tmp/lg.db' }, threadId: 't', concurrency: 32, spawner, resume: false });
 * result.distinctOutputs; // 100
 * ```
 */
export async function runLangGraphFanOut(options: LangGraphFanOutOptions): Promise<LangGraphFanOutResult> {
  const saver =
    options.saver.kind === 'sqlite'
      ? SqliteSaver.fromConnString(options.saver.path)
      : PostgresSaver.fromConnString(options.saver.url);
  if (saver instanceof PostgresSaver) await saver.setup();
  try {
    return await runGraph(options, saver);
  } finally {
    if (saver instanceof PostgresSaver) await saver.end();
  }
}

async function runGraph(
  options: LangGraphFanOutOptions,
  saver: SqliteSaver | PostgresSaver,
): Promise<LangGraphFanOutResult> {
  const State = Annotation.Root({
    items: Annotation<number>(),
    outputs: Annotation<string[]>({ reducer: (all, more) => all.concat(more), default: () => [] }),
  });
  const Item = Annotation.Root({ index: Annotation<number>() });
  const graph = new StateGraph(State)
    .addNode(
      'run',
      async (item: typeof Item.State) => {
        const capture = await captureProcess(options.shell, {
          args: ['-c', options.script],
          env: itemEnvironment(item.index),
          spawner: options.spawner,
        });
        if (capture.exitCode !== 0) throw new Error(`item ${item.index} exited ${capture.exitCode}`);
        return { outputs: [capture.stdout.text] };
      },
      { input: Item },
    )
    .addConditionalEdges(START, (state) =>
      Array.from({ length: state.items }, (_, index) => new Send('run', { index })),
    )
    .addEdge('run', END)
    .compile({ checkpointer: saver });
  const config = {
    configurable: { thread_id: options.threadId },
    maxConcurrency: options.concurrency,
  };
  const final = await graph.invoke(options.resume ? null : { items: options.items }, config);
  const outputs = final.outputs ?? [];
  return { outputs: outputs.length, distinctOutputs: new Set(outputs).size };
}
