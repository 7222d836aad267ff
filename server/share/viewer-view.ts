import {
  isDataEvent,
  type Approval,
  type ChatTurn,
  type InputRequest,
  type JoinResult,
  type SessionEvent,
  type Step,
  type ToolCall,
  type TurnPage,
} from "@/lib/contracts";

/**
 * What a share viewer is sent of a chat: the owner's view without account ids. The only
 * ones a turn carries are who sent its prompt (`sentBy`), an approval's `decidedBy` (the
 * identity that decided) and a question's `answeredBy`; a viewer learns that the call was
 * approved or denied, or the question answered, not by which account (a link made to show
 * members' names sends them beside the turns, `SharedPeople`). Every path to a
 * viewer (the join's snapshot and replay, older pages, live events) goes through here.
 * Objects without an id are returned as they are, so the common case copies nothing.
 */
export function viewerEvent(event: SessionEvent): SessionEvent {
  if (event.type === "turn:started" && event.sentBy !== undefined) {
    const { sentBy: _sentBy, ...rest } = event;
    return rest;
  }
  if (!isDataEvent(event)) return event;
  const { data } = event;
  if (data.kind === "input" && data.input.answeredBy !== undefined)
    return { ...event, data: { ...data, input: withoutAnswerer(data.input) } };
  if (data.kind !== "approval" || data.approval.decidedBy === undefined) return event;
  return { ...event, data: { ...data, approval: withoutDecider(data.approval) } };
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
    if (steps === turn.steps && turn.sentBy === undefined) return turn;
    const { sentBy: _sentBy, ...rest } = turn;
    return { ...rest, steps };
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
  const inputs = call.inputs?.some((i) => i.answeredBy !== undefined) ? call.inputs.map(withoutAnswerer) : call.inputs;
  const steps = call.subagent ? viewerSteps(call.subagent.steps) : undefined;
  if (approval === call.approval && inputs === call.inputs && steps === call.subagent?.steps) return call;
  return {
    ...call,
    ...(approval ? { approval } : {}),
    ...(inputs ? { inputs } : {}),
    ...(call.subagent && steps ? { subagent: { ...call.subagent, steps } } : {}),
  };
}

function withoutAnswerer(input: InputRequest): InputRequest {
  const { answeredBy: _answeredBy, ...rest } = input;
  return rest;
}

function withoutDecider(approval: Approval): Approval {
  const { decidedBy: _decidedBy, ...rest } = approval;
  return rest;
}
