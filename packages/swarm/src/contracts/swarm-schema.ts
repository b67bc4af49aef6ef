import { limitsInputSchema } from '@wharf/stdio-limits/schemas';
import { z } from 'zod';
import { contextLimitsShape } from './context-limits.js';
import { sandboxSchema } from './sandbox-schema.js';

/** Task and agent names: letters, digits, `_` and `-`, starting with a letter. */
const name = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'must start with a letter and use only letters, digits, _ and -');

/** A shell script task body. */
export const scriptSchema = z.strictObject({
  /** The script text, run by `shell -c`. */
  content: z.string().min(1, 'must not be empty'),
  /** Shell to run it with. Default `bash`. */
  shell: z.string().min(1).default('bash'),
  /** Working directory, relative to where the swarm is started. */
  cwd: z.string().optional(),
  /**
   * Variables the script gets besides the worker's environment (which never holds Wharf's own
   * credentials; `WHARF_PASS_ENV` on the worker names exceptions). Values are literal: no
   * `${VAR}` is expanded, and whatever is written here is kept in the workflow history, so a
   * secret belongs in the worker's `WHARF_PASS_ENV`, not here.
   */
  env: z
    .record(
      z.string(),
      z.string().refine((value) => !value.includes('\0'), 'must not contain a NUL character'),
    )
    .superRefine((env, context) => {
      for (const name of Object.keys(env)) {
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `"${name}" must be a variable name: letters, digits and _, not starting with a digit`,
        });
      }
    })
    .optional(),
  /** Kill the process after this many milliseconds. */
  timeout_ms: z.number().int().positive().optional(),
});

/** Most items a map loop fans out over unless its `max_items` says otherwise. */
export const DEFAULT_MAX_ITEMS = 1_000_000;

/** Most loop instances one task may have in flight at once; absent means no cap of its own. */
const maxConcurrency = z.number().int().min(1).max(2_000).optional();

/**
 * A task's loop:
 * - `{ type: repeat, count }` runs the task `count` times as separate instances;
 * - `{ type: map, over: †path }` runs one instance per item of a list known only at run time
 *   (the value at `over` once it resolves: a list, a string with one item per non-blank line, or
 *   a task's stored output: its non-blank lines, or the elements of a body that is one JSON
 *   array); each instance gets `item` and `index` among its inputs. `max_items` (default
 *   1,000,000) bounds the list.
 * `max_concurrency` caps how many of the task's instances run at once.
 */
export const loopSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('repeat'),
    count: z.number().int().min(1).max(DEFAULT_MAX_ITEMS),
    max_concurrency: maxConcurrency,
  }),
  z.strictObject({
    type: z.literal('map'),
    /** A `†` reference (or `||`/`&&` expression) whose value is the list to fan out over. */
    over: z.string().min(1, 'must be a †reference to a list'),
    /** Never set: the instance count is known only at run time (code reading `loop.count ?? 1` sees 1). */
    count: z
      .undefined({ error: 'a map loop has no count: it runs one instance per item of `over`' })
      .optional(),
    max_concurrency: maxConcurrency,
    /** Most items the list may have (default 1,000,000); a longer one fails the task, naming both numbers. */
    max_items: z.number().int().min(1).max(100_000_000).optional(),
  }),
]);

/** Where a task's result goes: an output path, optionally with a write method. */
export const outputSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    method: z.enum(['set', 'merge', 'push', 'concat']).default('set'),
  }),
]);

/**
 * A `limits` block: the capture limits of `@wharf/stdio-limits` (stream caps, truncation,
 * spill files, timeouts) and the context limits (how much of the earlier outputs a task sees).
 */
export const limitsSchema = limitsInputSchema.extend(contextLimitsShape);

/** Which earlier outputs a task sees (Tier 3 context control). */
export const contextControlSchema = z.strictObject({
  mode: z.enum(['automatic', 'manual', 'none']).optional(),
  include_tasks: z.array(name).optional(),
  exclude_tasks: z.array(name).optional(),
  min_relevance: z.number().min(0).max(1).optional(),
  max_bytes: z.number().int().nonnegative().optional(),
});

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration: milliseconds as a number, or a string such as `2s`, `500ms`, `5 minutes`, `1h`.
 * Parsed to milliseconds.
 */
export const durationSchema = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(DURATION, 'must be a duration such as 500ms, 2s, 5 minutes or 1h')
    .transform((text) => {
      const [, amount, unit] = DURATION.exec(text) as RegExpExecArray;
      const key = unit?.startsWith('ms') || unit?.startsWith('milli') ? 'ms' : (unit?.[0] ?? 'ms');
      return Math.round(Number(amount) * (UNIT_MS[key] ?? 1));
    })
    .refine((ms) => ms > 0, 'must be longer than 0'),
]);

/**
 * A human approval gate: once the task could run, it waits until someone approves or rejects
 * it (`wharf approve RUN TASK [--reject] [--comment …]`, the `approveTask` update). A rejected
 * task is skipped (`on_reject: skip`, the default; its dependents are skipped too) or failed
 * (`on_reject: fail`). With `timeout`, no answer in time counts as `on_timeout` (default `reject`).
 */
export const approvalSchema = z.strictObject({
  /** What the approver is asked; shown in `wharf status` and the Web UI. */
  prompt: z.string().min(1).optional(),
  timeout: durationSchema.optional(),
  on_timeout: z.enum(['reject', 'approve']).default('reject'),
  on_reject: z.enum(['skip', 'fail']).default('skip'),
});

/** A literal input value of a swarm task (`inputs:` of a `swarm:` task that holds no `†` reference). */
const literalInput = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * Whether a task's input text is a `†` reference or expression (`†a || †b`, `(†a && †b)`) rather
 * than a literal value: only a `swarm:` task's inputs may be literals.
 *
 * @example
 * ```ts
 * isReferenceInput('†data.pick.preview'); // true
 * isReferenceInput('strict'); // false
 * ```
 */
export function isReferenceInput(value: unknown): value is string {
  return typeof value === 'string' && /^\s*[†(]/.test(value);
}

/**
 * One task of a swarm: a script, an agent, or another swarm (`swarm: ./child.yaml`, run as a
 * child workflow; the file's loader attaches its read definition as `swarm_definition`, and a
 * swarm task's literal `inputs` are kept apart as `swarm_inputs`).
 */
export const taskSchema = z
  .strictObject({
    description: z.string().optional(),
    script: scriptSchema.optional(),
    agent: name.optional(),
    /** Another swarm file, relative to this one, run as a child swarm workflow. */
    swarm: z.string().min(1, 'must be the path of a swarm file').optional(),
    /**
     * The read definition of the `swarm:` file, attached by the loader that follows the files
     * (`loadSwarmTree`); never written by hand.
     */
    swarm_definition: z
      .custom<Record<string, unknown>>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
        'must be a read swarm definition',
      )
      .optional(),
    /** The read form: a swarm task's literal inputs (those holding no `†`), given to the child as they are. */
    swarm_inputs: z.record(z.string(), literalInput).optional(),
    prompt: z.string().optional(),
    depends_on: z.array(name).default([]),
    /**
     * Run the task only when this condition over `†` values holds; otherwise it is skipped (and
     * its dependents with it). See `parseWhen` for the grammar and what counts as true.
     */
    when: z.string().min(1, 'must be a condition such as †data.check.exitCode == 0').optional(),
    loop: loopSchema.optional(),
    approval: approvalSchema.optional(),
    limits: limitsSchema.optional(),
    /** How the task's processes are confined (over the swarm's `sandbox`, key by key). */
    sandbox: sandboxSchema.optional(),
    context: contextControlSchema.optional(),
    inject_context: z.boolean().default(true),
    /**
     * Named inputs holding `†` references or expressions, resolved before the task runs; a
     * `swarm:` task's may also be literal values (the child's `†input.<name>`).
     */
    inputs: z.record(z.string(), literalInput).default({}),
    output: outputSchema.optional(),
  })
  .superRefine((task, context) => {
    const kinds = (['script', 'agent', 'swarm'] as const).filter((kind) => task[kind] !== undefined);
    if (kinds.length === 0) {
      context.addIssue({
        code: 'custom',
        message: 'a task needs `script`, `agent` or `swarm`',
        path: [],
      });
    }
    if (kinds.length > 1) {
      context.addIssue({
        code: 'custom',
        message: `a task has only one of \`script\`, \`agent\` or \`swarm\`, not both ${kinds.map((kind) => `\`${kind}\``).join(' and ')}`,
        path: [kinds[1] as string],
      });
    }
    for (const [input, value] of Object.entries(task.inputs)) {
      if (typeof value === 'string' || task.swarm !== undefined) continue;
      context.addIssue({
        code: 'custom',
        message: 'must be a †reference (only a `swarm:` task takes literal values)',
        path: ['inputs', input],
      });
    }
    if (task.swarm !== undefined && task.loop !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'a `swarm:` task runs its swarm once: it takes no `loop`',
        path: ['loop'],
      });
    }
    if (task.loop?.type === 'map') {
      for (const reserved of ['item', 'index']) {
        if (Object.hasOwn(task.inputs, reserved)) {
          context.addIssue({
            code: 'custom',
            message: `\`${reserved}\` is set by \`loop: { type: map }\` for each instance; name this input otherwise`,
            path: ['inputs', reserved],
          });
        }
      }
    }
    if (task.prompt !== undefined && task.agent === undefined) {
      context.addIssue({ code: 'custom', message: '`prompt` only applies to agent tasks', path: ['prompt'] });
    }
  })
  .transform(({ inputs, ...task }) => {
    if (task.swarm === undefined) return { ...task, inputs: inputs as Record<string, string> };
    // A swarm task's literal inputs go to the child as they are; its references resolve as any task's.
    const references: Record<string, string> = {};
    const literals: Record<string, z.output<typeof literalInput>> = { ...task.swarm_inputs };
    for (const [input, value] of Object.entries(inputs)) {
      if (isReferenceInput(value)) references[input] = value;
      else literals[input] = value;
    }
    return {
      ...task,
      inputs: references,
      ...(Object.keys(literals).length === 0 ? {} : { swarm_inputs: literals }),
    };
  });

/** Activity timeouts of an agent's tasks and of the supervisor step it runs (milliseconds once parsed). */
export const agentTimeoutsSchema = z.strictObject({
  /** Longest one attempt may take. Default 30 minutes. */
  start_to_close: durationSchema.optional(),
  /** Longest silence between heartbeats (sent while the model is awaited). Default 20 seconds. */
  heartbeat: durationSchema.optional(),
});

/** A JavaScript regular expression (source text), checked when the definition is read. */
const pattern = z
  .string()
  .min(1)
  .superRefine((text, context) => {
    try {
      new RegExp(text);
    } catch (error) {
      context.addIssue({ code: 'custom', message: `not a regular expression: ${(error as Error).message}` });
    }
  });

/**
 * When an agent's tool call waits for a person (`wharf approve <run> <task> --call <id>`): every
 * call, or only calls whose arguments match `match` (each named argument, as text — JSON for a
 * value that is not a string — matches its regular expression). Unanswered past `timeout`,
 * `on_timeout` decides (default `reject`). A rejected call does not run: the model gets the
 * rejection, with its comment, as the tool's result.
 */
export const toolApprovalRuleSchema = z.strictObject({
  /** What the approver is asked; shown with the call in `wharf status` and the Web UI. */
  prompt: z.string().min(1).optional(),
  match: z.record(z.string().min(1), pattern).optional(),
  timeout: durationSchema.optional(),
  on_timeout: z.enum(['reject', 'approve']).default('reject'),
});

/** One of an agent's `tools`: a name, or `{ name, approval }` for calls that wait for a person. */
export const agentToolSchema = z.union([
  z.string(),
  z.strictObject({
    name: z.string().min(1),
    /** `true` (every call waits), `false` (none does: as the plain name), or a rule. */
    approval: z.union([z.boolean(), toolApprovalRuleSchema]).optional(),
  }),
]);

/**
 * An agent: a model id from the model registry, a system prompt, the tools it may call. Once
 * read, `tools` holds the names only and `tool_approvals` the rules of the tools whose calls
 * wait for a person (also accepted as written, so a read definition reads again the same).
 */
export const agentSchema = z
  .strictObject({
    model: z.string().min(1),
    system: z.string().optional(),
    tools: z.array(agentToolSchema).default([]),
    /** By tool name: the approval rules `tools` entries gave (the read form). */
    tool_approvals: z.record(z.string(), toolApprovalRuleSchema).optional(),
    max_steps: z.number().int().min(1).max(100).default(8),
    /** Most workers one task of this agent may start with `spawn_worker` (default 8). */
    max_spawns: z.number().int().min(0).max(64).optional(),
    timeouts: agentTimeoutsSchema.optional(),
  })
  .superRefine((agent, context) => {
    const names = new Set(agent.tools.map((tool) => (typeof tool === 'string' ? tool : tool.name)));
    for (const tool of Object.keys(agent.tool_approvals ?? {})) {
      if (names.has(tool)) continue;
      context.addIssue({
        code: 'custom',
        path: ['tool_approvals', tool],
        message: `"${tool}" is not one of the agent's tools`,
      });
    }
  })
  .transform(({ tools, tool_approvals, ...agent }) => {
    const approvals: Record<string, ToolApprovalRule> = { ...tool_approvals };
    for (const tool of tools) {
      if (typeof tool === 'string' || tool.approval === undefined) continue;
      if (tool.approval === false) delete approvals[tool.name];
      else approvals[tool.name] = tool.approval === true ? { on_timeout: 'reject' } : tool.approval;
    }
    return {
      ...agent,
      tools: tools.map((tool) => (typeof tool === 'string' ? tool : tool.name)),
      ...(Object.keys(approvals).length === 0 ? {} : { tool_approvals: approvals }),
    };
  });

/** Extra workflow channels, by type. */
export const channelSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.enum(['last_value', 'topic', 'delta', 'messages', 'ephemeral']) }),
  z.strictObject({ type: z.literal('barrier'), expected: z.number().int().positive() }),
  z.strictObject({ type: z.literal('named_barrier'), expected: z.array(z.string().min(1)).min(1) }),
]);

/** `hooks.post_task` entries. */
export const postTaskHookSchema = z.strictObject({
  checkpoint_and_prune: z.strictObject({
    every: z.number().int().min(1),
    strategy: z.enum(['most_recent', 'highest_relevance', 'lru', 'direct_dependencies']),
    keep_count: z.number().int().min(1).optional(),
  }),
});

/** The supervisor step: an agent that answers a question from mounted evidence. */
export const supervisorSchema = z.strictObject({
  agent: name,
  question: z.string().min(1),
  evidence_budget_bytes: z.number().int().min(256).default(32_000),
});

/** A swarm definition as written in `swarm.yaml`. */
export const swarmDefinitionSchema = z.strictObject({
  name: z.string().min(1),
  version: z.union([z.string(), z.number()]).transform(String).default('1'),
  description: z.string().optional(),
  limits: limitsSchema.optional(),
  /** How the processes of every task are confined (see `sandboxSchema`); tasks may override keys. */
  sandbox: sandboxSchema.optional(),
  agents: z.record(name, agentSchema).default({}),
  channels: z.record(name, channelSpecSchema).default({}),
  tasks: z
    .record(name, taskSchema)
    .refine((tasks) => Object.keys(tasks).length > 0, 'a swarm needs at least one task'),
  hooks: z.strictObject({ post_task: z.array(postTaskHookSchema).default([]) }).optional(),
  supervisor: supervisorSchema.optional(),
  /**
   * How the workflow ends when tasks failed: `fail` (the default) fails it with a
   * `WharfSwarmFailed` failure carrying the result, so the Web UI and visibility show it
   * failed; `complete` completes it with the result's `status: failed`.
   */
  on_failure: z.enum(['fail', 'complete']).optional(),
});

/** A validated swarm definition (defaults applied). */
export type SwarmDefinition = z.output<typeof swarmDefinitionSchema>;
/** One validated task. */
export type TaskDefinition = z.output<typeof taskSchema>;
/** One validated loop. */
export type LoopDefinition = z.output<typeof loopSchema>;
/** One validated approval gate. */
export type ApprovalDefinition = z.output<typeof approvalSchema>;
/** One validated agent. */
export type AgentDefinition = z.output<typeof agentSchema>;
/** One validated tool approval rule (milliseconds once parsed). */
export type ToolApprovalRule = z.output<typeof toolApprovalRuleSchema>;
