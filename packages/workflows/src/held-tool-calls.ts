// An agent task's tool calls held for a person: the approveToolCall update that answers them,
// the notices that show them in the swarm, and the wait. Deterministic: imports only
// @temporalio/workflow and pure modules.
import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentTaskInput, AgentToolCallRef, PendingToolCall, ToolApprovalRule } from '@wharf/swarm';
import { approveCommand, ToolCallApprovals, type ToolCallVerdict } from '@wharf/swarm';
import { approveToolCallUpdate, toolCallNoticeSignal } from './handler-definitions.js';

/**
 * The tool calls one agent workflow holds for a person. Registers the `approveToolCall` update
 * (its validator refuses a call that does not wait here, or was answered), tells the swarm when
 * a call starts and stops waiting (the `toolCallNotice` signal: the swarm shows it like a gate),
 * and waits durably: the wait and its answer are in this workflow's history, so a worker that
 * dies meanwhile loses nothing and the call runs once, after its answer.
 *
 * @example
 * ```ts
 * const held = new HeldToolCalls(input, label);
 * const verdict = await held.decide(call, { on_timeout: 'reject' }, (note) => progress(note));
 * if (!verdict.approved) return agentToolCall({ ...toolCall, rejected: verdict.reason });
 * ```
 */
export class HeldToolCalls {
  readonly #input: AgentTaskInput;
  readonly #label: string;
  readonly #approvals = new ToolCallApprovals();

  constructor(input: AgentTaskInput, label: string) {
    this.#input = input;
    this.#label = label;
    setHandler(approveToolCallUpdate, (request) => this.#approvals.answer(request, Date.now()), {
      description:
        'Approves or rejects a tool call this agent holds for a person; a rejected call does not run and the model is told why.',
      validator: (request) => this.#approvals.check(request),
    });
  }

  /**
   * Holds `call` under `rule` until it is answered, or decided by the rule's `on_timeout` past
   * its `timeout`, and returns the verdict. `show` is told what the task waits for.
   */
  async decide(
    call: AgentToolCallRef,
    rule: ToolApprovalRule,
    show: (note: string) => void,
  ): Promise<Extract<ToolCallVerdict, { decided: true }>> {
    const pending = this.#approvals.open(
      {
        task: this.#label,
        callId: call.toolCallId,
        tool: call.toolName,
        arguments: call.approval?.arguments ?? '',
        workflowId: workflowInfo().workflowId,
        owner: this.#input.owner ?? this.#label,
      },
      rule,
      Date.now(),
    );
    this.#notify(pending, true);
    show(
      `waits for approval of ${call.toolName} ${pending.arguments}: ${approveCommand(this.#input.workflowId, {
        task: pending.task,
        requestedAt: pending.requestedAt,
        call: {
          id: pending.callId,
          tool: pending.tool,
          arguments: pending.arguments,
          workflowId: pending.workflowId,
        },
      })}`,
    );
    for (;;) {
      const answered = () => this.#approvals.answered(pending.callId);
      if (pending.deadline === undefined) await condition(answered);
      else await condition(answered, Math.max(1, pending.deadline - Date.now()));
      const verdict = this.#approvals.verdict(pending.callId, Date.now());
      if (!verdict.decided) continue;
      this.#notify(pending, false);
      return verdict;
    }
  }

  /** Tells the swarm; a swarm that is gone (terminated) changes nothing here. */
  #notify(call: PendingToolCall, open: boolean): void {
    void getExternalWorkflowHandle(this.#input.workflowId)
      .signal(toolCallNoticeSignal, { call, open })
      .catch(() => undefined);
  }
}
