import {
  isDataEvent,
  type Approval,
  type ChatTurn,
  type JoinResult,
  type SessionEvent,
  type Step,
  type ToolCall,
  type TurnPage,
} from "@/lib/contracts";

/**
 * What a share viewer is sent of a chat: the owner's view without account ids. The only
 * one a turn carries is an approval's `decidedBy` (the identity that decided); a viewer
 * learns that the call was approved or denied, not by which account. Every path to a
 * viewer (the join's snapshot and replay, older pages, live events) goes through here.
 * Objects without an id are returned as they are, so the common case copies nothing.
 */
export function viewerEvent(event: SessionEvent): SessionEvent {
  if (!isDataEvent(event) || event.data.kind !== "approval" || event.data.approval.decidedBy === undefined) return event;
  return { ...event, data: { ...event.data, approval: withoutDecider(event.data.approval) } };
}

export function viewerJoin(join: JoinResult): JoinResult {
  return join.mode === "snapshot" ? { ...join, turns: viewerTurns(join.turns) } : join;
}

export function viewerPage(page: TurnPage): TurnPage {
  return { ...page, turns: viewerTurns(page.turns) };
}

function viewerTurns(turns: ChatTurn[]): ChatTurn[] {
  return turns.map((turn) => {
    const steps = viewerSteps(turn.steps);
    return steps === turn.steps ? turn : { ...turn, steps };
  });
}

function viewerSteps(steps: Step[]): Step[] {
  let changed = false;
  const out = steps.map((step) => {
    let stepChanged = false;
    const toolCalls = step.toolCalls.map((call) => {
      const next = viewerCall(call);
      if (next !== call) stepChanged = true;
      return next;
    });
    if (!stepChanged) return step;
    changed = true;
    return { ...step, toolCalls };
  });
  return changed ? out : steps;
}

function viewerCall(call: ToolCall): ToolCall {
  const approval = call.approval?.decidedBy === undefined ? call.approval : withoutDecider(call.approval);
  const steps = call.subagent ? viewerSteps(call.subagent.steps) : undefined;
  if (approval === call.approval && steps === call.subagent?.steps) return call;
  return {
    ...call,
    ...(approval ? { approval } : {}),
    ...(call.subagent && steps ? { subagent: { ...call.subagent, steps } } : {}),
  };
}

function withoutDecider(approval: Approval): Approval {
  const { decidedBy: _decidedBy, ...rest } = approval;
  return rest;
}
