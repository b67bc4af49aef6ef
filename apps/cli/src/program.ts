import { InvalidConfigError } from '@wharf/orchestrator';
import { Command, CommanderError, Option } from 'commander';
import { CliError, exitCodes } from './cli-error.js';
import { addClusterCommand } from './cluster-program.js';
import { defaultCodecServerPort } from './codec-server-port.js';
import type { EventsServerCommandOptions } from './commands/events-server.js';
import { ensureDataDir } from './ensure-data-dir.js';
import { exitCodesHelp } from './exit-codes-help.js';
import { age, durationIn, httpUrl, integerIn, size, toolNames } from './option-parsers.js';
import { type CliIo, processIo } from './output.js';

// Each command's module (and what it needs: the Temporal client or worker, the stores, the
// model providers) is imported when that command runs, so `--help`, a usage error or a
// command that needs none of them starts without loading them all.

const collect = (value: string, previous: string[]) => [...previous, value];
const dataDirOption = () => new Option('--data-dir <dir>', 'Wharf data directory').default('.wharf');
// Unset, the cluster is what Temporal's standard configuration names (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS, TEMPORAL_PROFILE), else 127.0.0.1:7233.
const addressHelp =
  'Temporal server (default: $TEMPORAL_ADDRESS or the $TEMPORAL_PROFILE profile, else 127.0.0.1:7233)';
const namespaceHelp = "Temporal namespace (default: $TEMPORAL_NAMESPACE or the profile's, else default)";
const modelHelp =
  'the model every agent runs on, or <agent>=<model> for one (supervisor=<model>: the supervisor step); repeatable, default $WHARF_MODEL. Ids: openai:<model>, anthropic:<model>, openai-compatible:<base url>:<model>, echo, scripted:<file>';
const summarizerHelp =
  "the model that summarizes a script's stdout under truncation_strategy: summary (default $WHARF_SUMMARIZER, else the model --model gives every agent)";
const toolsHelp =
  "the tools registered with the workers (comma-separated; default $WHARF_TOOLS): agents may name only these and Wharf's own; without them, other names are left to the worker's check";

/**
 * The `wharf` command line: `dev`, `run`, `resume`, `rerun`, `status`, `approve`, `input`, `outputs`, `evidence`,
 * `validate`, `emit`, `gc`.
 *
 * @example
 * ```ts
 * const code = await runCli(['validate', 'swarm.yaml']);
 * ```
 */
export function createProgram(io: CliIo = processIo): Command {
  const program = new Command('wharf')
    .description('Durable agent swarms on Temporal, with a data plane for their big outputs.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('dev')
    .description('Start a local Temporal dev server (unless one answers), the intake server and a worker')
    .addOption(dataDirOption())
    .option('--no-ui', 'do not serve the Temporal Web UI')
    .option('--address <host:port>', 'use this Temporal server instead of starting one')
    .option('--model <model>', modelHelp, collect, [])
    .option('--summarizer <model>', summarizerHelp)
    .action(
      async (options: {
        dataDir: string;
        ui: boolean;
        address?: string;
        model: string[];
        summarizer?: string;
      }) => {
        await ensureDataDir(options.dataDir);
        const { devCommand } = await import('./commands/dev.js');
        await devCommand(options, io);
      },
    );

  program
    .command('run <swarm.yaml>')
    .description(
      "Validate and run a swarm; prints the result, the out ids and the run's Web UI link (of a server it or `wharf dev` started, else of --ui-url)",
    )
    .option('-i, --input <key=value>', 'a value for †input.<key> (repeatable)', collect, [])
    .option(
      '-f, --follow',
      "show live progress: each task's status, each running agent's step and tool calls (with --json: one JSON line per run event, wharf.events/v1)",
      false,
    )
    .addOption(
      new Option(
        '--wait-for-inputs <duration>',
        'when only tasks waiting on †input.* remain, wait this long for `wharf input` (e.g. 10m)',
      ).argParser(durationIn('--wait-for-inputs')),
    )
    .option('--json', 'print the result as JSON', false)
    .option('--owner <id>', 'owner id recorded on outputs and evidence', 'default')
    .option('--workdir <dir>', 'directory the scripts run in, on the workers (default: the current one)')
    .option(
      '--address <host:port>',
      'Temporal server (default: $TEMPORAL_ADDRESS or the $TEMPORAL_PROFILE profile; else 127.0.0.1:7233, else start a local one)',
    )
    .addOption(
      new Option('--ui-url <url>', "the Web UI of --address's server, for the run's link")
        .env('WHARF_UI_URL')
        .argParser(httpUrl('--ui-url')),
    )
    .option('--tools <names>', toolsHelp)
    .option('--model <model>', modelHelp, collect, [])
    .option('--summarizer <model>', summarizerHelp)
    .option(
      '--concurrency <n>',
      'most subagents running at once (the in-process worker and the swarm; default 8)',
      integerIn('--concurrency', 1, 1_900),
    )
    .option(
      '--max-swarm-depth <n>',
      'most swarm files `swarm:` tasks may nest below this one (default 4)',
      integerIn('--max-swarm-depth', 0, 64),
    )
    .option(
      '--task-queue <queue>',
      "start the swarm on this task queue (a cluster's workers poll `wharf`); default: one of this command's own",
    )
    .option(
      '--no-worker',
      "run no worker in this command: the queue's workers run the swarm (with --task-queue)",
    )
    .addOption(dataDirOption())
    .action(
      async (
        file: string,
        options: {
          taskQueue?: string;
          worker: boolean;
          model: string[];
          summarizer?: string;
          concurrency?: number;
          input: string[];
          follow: boolean;
          json: boolean;
          owner: string;
          address?: string;
          uiUrl?: string;
          dataDir: string;
          waitForInputs?: number;
          tools?: string;
          maxSwarmDepth?: number;
        },
      ) => {
        const tools = toolNames(options.tools, process.env.WHARF_TOOLS);
        await ensureDataDir(options.dataDir);
        const { waitForInputs, tools: _tools, ...rest } = options;
        const { runCommand } = await import('./commands/run.js');
        await runCommand(
          file,
          { ...rest, tools, ...(waitForInputs === undefined ? {} : { waitForInputsMs: waitForInputs }) },
          io,
        );
      },
    );

  program
    .command('resume <workflowId>')
    .description(
      "Give a running swarm whose `wharf run` stopped a worker again (its own task queue, this data directory's data plane), and follow it to its result",
    )
    .option('-f, --follow', 'show live progress, as `wharf run --follow`', false)
    .option('--json', 'print the result as JSON', false)
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .option('--summarizer <model>', summarizerHelp)
    .addOption(dataDirOption())
    .action(
      async (
        workflowId: string,
        options: {
          follow: boolean;
          json: boolean;
          address?: string;
          namespace?: string;
          summarizer?: string;
          dataDir: string;
        },
      ) => {
        await ensureDataDir(options.dataDir);
        const { resumeCommand } = await import('./commands/resume.js');
        await resumeCommand(workflowId, options, io);
      },
    );

  program
    .command('rerun <workflowId>')
    .description(
      'Run a finished swarm again from one task, or for a changed input: it (or the tasks reading the input) and everything that depends on it run again, every other task reuses the outputs the run stored',
    )
    .option(
      '--from <task>',
      "the task to run again (with every task that depends on it; <swarm task>.<inner task> re-runs that swarm: task's child run from its task); without it, only what reads a changed --input or changed in --file",
    )
    .option(
      '-i, --input <key=value>',
      'a new value for †input.<key> (repeatable; tasks reading it run again)',
      collect,
      [],
    )
    .option(
      '--file <swarm.yaml>',
      "an edited definition to run instead of the run's own (changed tasks run again)",
    )
    .option('-f, --follow', 'show live progress, as `wharf run --follow`', false)
    .option('--json', 'print the plan and the result as JSON', false)
    .option('--address <host:port>', 'Temporal server (default: 127.0.0.1:7233, else start a local one)')
    .option('--tools <names>', toolsHelp)
    .option(
      '--model <model>',
      `${modelHelp}; applies to --file's definition (without it the run's own models run)`,
      collect,
      [],
    )
    .option('--summarizer <model>', summarizerHelp)
    .addOption(dataDirOption())
    .action(
      async (
        workflowId: string,
        options: {
          from?: string;
          input: string[];
          file?: string;
          follow: boolean;
          json: boolean;
          address?: string;
          tools?: string;
          model: string[];
          summarizer?: string;
          dataDir: string;
        },
      ) => {
        await ensureDataDir(options.dataDir);
        const { tools, ...rest } = options;
        const { rerunCommand } = await import('./commands/rerun.js');
        await rerunCommand(workflowId, { ...rest, tools: toolNames(tools, process.env.WHARF_TOOLS) }, io);
      },
    );

  program
    .command('status [workflowId]')
    .description(
      "Show a swarm's progress (a finished swarm: its result); without one, where the store and blobs live",
    )
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .option('--json', 'print JSON', false)
    .addOption(dataDirOption())
    .action(
      async (
        workflowId: string | undefined,
        options: { address?: string; namespace?: string; json: boolean; dataDir: string },
      ) => {
        const { dataPlaneStatus, statusCommand } = await import('./commands/status.js');
        await (workflowId === undefined
          ? dataPlaneStatus(options, io)
          : statusCommand(workflowId, options, io));
      },
    );

  program
    .command('events <workflowId>')
    .description(
      "Print a run's events (tasks started, finished, failed; approvals; the run's start, continues and end) as they happen, until it ends; numbered, so --after <seq> resumes without a gap or a repeat",
    )
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .option(
      '--after <seq>',
      'start after this event number (the last one read)',
      integerIn('--after', 0, Number.MAX_SAFE_INTEGER),
      0,
    )
    .option('--json', 'one JSON object per line (schema wharf.events/v1)', false)
    .action(
      async (
        workflowId: string,
        options: { address?: string; namespace?: string; after: number; json: boolean },
      ) => {
        const { eventsCommand } = await import('./commands/events.js');
        await eventsCommand(workflowId, options, io);
      },
    );

  program
    .command('events-server')
    .description(
      "Serve runs' events as Server-Sent Events at GET /runs/<workflowId>/events, resuming after Last-Event-ID",
    )
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .option(
      '--host <address>',
      'address to bind (anything but loopback needs a token or an OIDC issuer)',
      '127.0.0.1',
    )
    .option('--port <port>', 'port to listen on (0: any free port)', integerIn('--port', 0, 65_535), 8090)
    .option('--origin <url>', 'a browser origin allowed to read the streams (repeatable)', collect, [])
    .option('--token-file <path>', 'require this bearer token (read from the file; else WHARF_EVENTS_TOKEN)')
    .option('--oidc-issuer <url>', 'accept access tokens of this OIDC issuer (its iss, exactly)')
    .option('--oidc-audience <aud>', 'the audience those tokens must name')
    .action(async (options: EventsServerCommandOptions) => {
      const { eventsServerCommand } = await import('./commands/events-server.js');
      await eventsServerCommand(options, io);
    });

  program
    .command('approve <workflowId> <task>')
    .description(
      "Approve (or with --reject, reject) a task's approval gate, or with --call one tool call an agent task holds; <task> <swarm task>.<inner task> answers one inside that swarm: task's child run",
    )
    .option(
      '--call <id>',
      'the tool call to answer (its id, as `wharf status` lists it); <task> is the agent task',
    )
    .option('--reject', 'reject instead of approve', false)
    .option('--comment <text>', 'why; recorded with the decision (a rejected task shows it as its reason)')
    .option('--by <name>', 'who answers', process.env.USER)
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .option('--json', 'print JSON', false)
    .action(
      async (
        workflowId: string,
        task: string,
        options: {
          call?: string;
          reject: boolean;
          comment?: string;
          by?: string;
          address?: string;
          namespace?: string;
          json: boolean;
        },
      ) => {
        const { approveCommand } = await import('./commands/control.js');
        await approveCommand(workflowId, task, options, io);
      },
    );

  program
    .command('input <workflowId> [key=value...]')
    .description(
      'Add †input.* values to a running swarm (values that read as JSON are JSON); a key already set needs --replace',
    )
    .option('--json <object>', 'the values as one JSON object')
    .option('--replace', 'replace values already set (else a key already set is refused)', false)
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .action(
      async (
        workflowId: string,
        pairs: string[],
        options: { json?: string; replace: boolean; address?: string; namespace?: string },
      ) => {
        const { inputCommand } = await import('./commands/control.js');
        await inputCommand(workflowId, pairs, options, io);
      },
    );

  const outputs = program.command('outputs').description('Read stored outputs');
  outputs
    .command('list')
    .description('List outputs, oldest first')
    .option('--run <workflowId>', 'only this run')
    .option('--limit <n>', 'page size (1 to 1000)', integerIn('--limit', 1, 1000), 100)
    .option('--cursor <cursor>', 'continue after the page that printed this cursor')
    .option(
      '--evidence',
      "also list workers' evidence: its records when it shares the store, else the workers and tool calls of the runs listed",
      false,
    )
    .option(
      '--streams',
      "also list output streams' chunks and markers (a stream's sealed whole is always listed; `outputs tail` reads a stream)",
      false,
    )
    .option('--json', 'print JSON', false)
    .addOption(dataDirOption())
    .action(
      async (options: {
        run?: string;
        limit: number;
        cursor?: string;
        evidence: boolean;
        streams: boolean;
        json: boolean;
        dataDir: string;
      }) => {
        await ensureDataDir(options.dataDir);
        const { outputsList } = await import('./commands/inspect.js');
        await outputsList(options, io);
      },
    );
  outputs
    .command('show <outId>')
    .description('Write an output body (or a byte range of it) to stdout')
    .option('--range <a-b>', 'byte range, end exclusive (e.g. 0-1024)')
    .option('--json', 'print the record instead of the body', false)
    .addOption(dataDirOption())
    .action(async (outId: string, options: { range?: string; json: boolean; dataDir: string }) => {
      await ensureDataDir(options.dataDir);
      const { outputsShow } = await import('./commands/inspect.js');
      await outputsShow(outId, options, io);
    });

  outputs
    .command('tail <id>')
    .description(
      "A stream's text (str_… or the out id of one of its parts) as its current attempt stored it, or an output's body; --follow prints new chunks until it is sealed",
    )
    .option('--follow', 'keep printing new chunks until the stream is sealed (Ctrl-C stops)', false)
    .option('--json', 'one JSON line per event (attempt, chunk, abandoned, sealed)', false)
    .addOption(dataDirOption())
    .action(async (id: string, options: { follow: boolean; json: boolean; dataDir: string }) => {
      await ensureDataDir(options.dataDir);
      const { outputsTail } = await import('./commands/outputs-tail.js');
      const controller = new AbortController();
      const stop = (): void => controller.abort();
      process.once('SIGINT', stop);
      try {
        await outputsTail(id, { ...options, signal: controller.signal }, io);
      } finally {
        process.off('SIGINT', stop);
      }
    });

  outputs
    .command('refs <outId>')
    .description(
      'The out ids a stored list names (a loop task’s manifest), one per line; a plain output: its own id',
    )
    .option(
      '--records',
      "print the list's entries as JSON lines instead (a loop's: instance, status, out ids)",
      false,
    )
    .addOption(dataDirOption())
    .action(async (outId: string, options: { records: boolean; dataDir: string }) => {
      await ensureDataDir(options.dataDir);
      const { outputsRefs } = await import('./commands/outputs-refs.js');
      await outputsRefs(outId, options, io);
    });

  program
    .command('evidence <workflowId>')
    .description('Print exactly the evidence a supervisor of that run would see')
    .option(
      '--budget <bytes>',
      'evidence budget in bytes',
      integerIn('--budget', 0, Number.MAX_SAFE_INTEGER),
      32_000,
    )
    .option('--owner <id>', 'owner id', 'default')
    .option('--json', 'print JSON', false)
    .option(
      '--address <host:port>',
      `${addressHelp}: asked whether the run is a re-run, whose reused tasks' evidence it shows too`,
    )
    .option('--namespace <name>', namespaceHelp)
    .addOption(dataDirOption())
    .action(
      async (
        workflowId: string,
        options: {
          budget: number;
          owner: string;
          json: boolean;
          dataDir: string;
          address?: string;
          namespace?: string;
        },
      ) => {
        await ensureDataDir(options.dataDir);
        const { evidenceCommand } = await import('./commands/inspect.js');
        await evidenceCommand(workflowId, options, io);
      },
    );

  program
    .command('validate <swarm.yaml>')
    .description('Check a swarm definition (errors with line and column)')
    .option('--json', 'print the normalised definition as JSON', false)
    .option('--tools <names>', toolsHelp)
    .option(
      '--model <model>',
      `${modelHelp}; with it (or $WHARF_MODEL) every model the swarm would run on is checked here, keys included`,
      collect,
      [],
    )
    .option('--summarizer <model>', summarizerHelp)
    .option(
      '--max-swarm-depth <n>',
      'most swarm files `swarm:` tasks may nest below this one (default 4)',
      integerIn('--max-swarm-depth', 0, 64),
    )
    .action(
      async (
        file: string,
        options: {
          json: boolean;
          tools?: string;
          model: string[];
          summarizer?: string;
          maxSwarmDepth?: number;
        },
      ) => {
        const { validateCommand } = await import('./commands/validate.js');
        const { tools, ...rest } = options;
        await validateCommand(file, { ...rest, tools: toolNames(tools, process.env.WHARF_TOOLS) }, io);
      },
    );

  program
    .command('emit')
    .description('Store stdin as an output (inside a subagent: uses WHARF_OUTPUT_URL and WHARF_OUTPUT_TOKEN)')
    .option('--name <name>', 'output name')
    .option('--content-type <type>', 'MIME type')
    .option('--label <key=value>', 'label (repeatable)', collect, [])
    .option(
      '--key <key>',
      'idempotency key (inside a subagent scoped by WHARF_EMIT_KEY; default: derived from the body)',
    )
    .option('--json', 'print the ref as JSON', false)
    .action(
      async (options: {
        name?: string;
        contentType?: string;
        label: string[];
        key?: string;
        json: boolean;
      }) => {
        const { emitCommand } = await import('./commands/emit.js');
        await emitCommand(options, io);
      },
    );

  program
    .command('gc')
    .description(
      'Remove stored outputs by a retention policy (and the evidence of runs left without any); prints what it removed',
    )
    .option(
      '--older-than <age>',
      'remove outputs stored longer ago than this (e.g. 12h, 7d, 2w)',
      age('--older-than'),
    )
    .option(
      '--max-bytes <size>',
      'then remove the oldest until the store holds at most this (e.g. 10GiB)',
      size('--max-bytes'),
    )
    .option('--run <workflowId>', 'remove every output of this run')
    .option(
      '--orphan-grace <age>',
      'remove bodies no output references once older than this (default 1h: younger ones may be EMITs on their way)',
      age('--orphan-grace'),
    )
    .option('--dry-run', 'print what would be removed, remove nothing', false)
    .option('--json', 'print the report as JSON', false)
    .addOption(dataDirOption())
    .action(
      async (options: {
        olderThan?: number;
        maxBytes?: number;
        run?: string;
        orphanGrace?: number;
        dryRun: boolean;
        json: boolean;
        dataDir: string;
      }) => {
        await ensureDataDir(options.dataDir);
        const { gcCommand } = await import('./commands/gc.js');
        await gcCommand(options, io);
      },
    );

  program
    .command('codec-server')
    .description(
      'Serve the Temporal Codec Server of this data plane, so the Web UI and `temporal … --codec-endpoint` show encrypted payloads and External Storage values (keys from WHARF_CODEC_KEYS / WHARF_CODEC_KEYS_FILE)',
    )
    .addOption(dataDirOption())
    .option(
      '--host <address>',
      'address to bind (anything but loopback needs a token or an OIDC issuer)',
      '127.0.0.1',
    )
    .option(
      '--port <port>',
      "port to listen on (0: any free port; the default is the cluster's codec server's)",
      integerIn('--port', 0, 65_535),
      defaultCodecServerPort,
    )
    .option('--origin <url>', 'a Web UI origin allowed to call it from a browser (repeatable)', collect, [])
    .option('--token-file <path>', 'require this bearer token (read from the file; else WHARF_CODEC_TOKEN)')
    .option(
      '--oidc-issuer <url>',
      "accept the Web UI's forwarded access tokens of this OIDC issuer (its iss, exactly)",
    )
    .option('--oidc-audience <aud>', 'the audience those tokens must name')
    .option(
      '--oidc-jwks-uri <url>',
      "the issuer's JWKS (default: from its discovery document)",
      httpUrl('--oidc-jwks-uri'),
    )
    .option(
      '--owner <owner>',
      "the owner whose stored payloads it opens (the External Storage driver's; default temporal)",
    )
    .action(
      async (options: {
        dataDir: string;
        host: string;
        port: number;
        origin: string[];
        tokenFile?: string;
        oidcIssuer?: string;
        oidcAudience?: string;
        oidcJwksUri?: string;
        owner?: string;
      }) => {
        await ensureDataDir(options.dataDir);
        const { codecServerCommand } = await import('./commands/codec-server.js');
        await codecServerCommand(options, io);
      },
    );

  program
    .command('list')
    .description(
      'List swarm runs, most recent first: run, swarm, status (incl. waiting), start, duration (a visibility query on Wharf’s search attributes)',
    )
    .option('--swarm <name>', 'only runs of this swarm')
    .option('--owner <id>', 'only runs of this owner')
    .option(
      '--status <status>',
      'only runs in this status: running, waiting, supervising, completed, failed, cancelled, terminated, timed-out',
    )
    .option('--limit <n>', 'most runs listed (1 to 1000)', integerIn('--limit', 1, 1000), 20)
    .option('--json', 'print { schema: "wharf.list/v1", query, runs, more }', false)
    .option('--address <host:port>', addressHelp)
    .option('--namespace <name>', namespaceHelp)
    .addOption(dataDirOption())
    .action(
      async (options: {
        swarm?: string;
        owner?: string;
        status?: string;
        limit: number;
        json: boolean;
        address?: string;
        namespace?: string;
        dataDir: string;
      }) => {
        const { listCommand } = await import('./commands/list.js');
        await listCommand(options, io);
      },
    );

  for (const [verb, description] of [
    [
      'cancel',
      'Cancel a running swarm (a Temporal cancellation): it stops scheduling, its tasks in flight are cancelled, what it stored stays; it ends CANCELED',
    ],
    [
      'terminate',
      'End a running swarm at once on the server, for one that will not cancel (no worker runs it)',
    ],
  ] as const) {
    program
      .command(`${verb} <workflowId>`)
      .description(description)
      .addOption(
        new Option('--wait <duration>', 'wait this long for the run to end (e.g. 30s)')
          .argParser(durationIn('--wait'))
          .default(10_000, '10s'),
      )
      .option('--reason <text>', 'recorded with a termination')
      .option(
        '--by <name>',
        'who asks (recorded in the run: its memo for a cancellation); default the OS user',
      )
      .option('--json', 'print JSON', false)
      .option('--address <host:port>', addressHelp)
      .option('--namespace <name>', namespaceHelp)
      .addOption(dataDirOption())
      .action(
        async (
          workflowId: string,
          options: {
            wait: number;
            reason?: string;
            by?: string;
            json: boolean;
            address?: string;
            namespace?: string;
            dataDir: string;
          },
        ) => {
          const { cancelCommand, terminateCommand } = await import('./commands/cancel.js');
          const { wait, ...rest } = options;
          await (verb === 'cancel' ? cancelCommand : terminateCommand)(
            workflowId,
            { ...rest, waitMs: wait },
            io,
          );
        },
      );
  }

  addClusterCommand(program, io);
  // Every command's --help (and `wharf help <command>`) ends with the exit codes.
  program.addHelpText('afterAll', exitCodesHelp());
  return program;
}

/**
 * Runs the CLI and returns the exit code (0 ok, 1 swarm failed, 2 usage or definition,
 * 3 not found, 4 server unreachable).
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const program = createProgram(io);
  program.configureOutput({
    writeOut: (text) => io.out(text.trimEnd()),
    writeErr: (text) => io.err(text.trimEnd()),
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
        ? 0
        : 2;
    }
    // A Temporal or tracing setting that cannot work is a usage error, whoever met it first.
    const config = configErrorIn(error);
    if (config !== undefined) {
      io.err(`wharf: ${config.message}`);
      return exitCodes.USAGE;
    }
    const hint = (await import('./codec-keys.js')).encryptedPayloadHint(error);
    if (hint !== undefined) io.err(`wharf: ${hint}`);
    const expected = CliError.isInstance(error)
      ? error
      : (await import('./data-plane-error.js')).dataPlaneCliError(error);
    if (expected !== undefined) {
      io.err(`wharf: ${expected.message}`);
      return expected.exitCode;
    }
    io.err(`wharf: unexpected error: ${describeError(error)}`);
    return 70;
  }
}

/** The InvalidConfigError an error is, or was caused by. */
function configErrorIn(error: unknown): InvalidConfigError | undefined {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (InvalidConfigError.isInstance(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/** The message of an error and of every cause behind it, one per line. */
function describeError(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    lines.push(current instanceof Error ? `${current.name}: ${current.message}` : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.join('\n  caused by ');
}
