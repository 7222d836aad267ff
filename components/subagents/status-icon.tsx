import type { RunOutcome } from "@/lib/subagents/run-summary";
import { CheckIcon, SpinnerIcon, XIcon } from "@/components/ui/icons";

/** How a run or a call reads: a run's outcome, or a call's status (a cut-short call is "cancelled", as neutral as a stop). */
export type StatusState = RunOutcome | "success" | "error" | "cancelled";

const LABELS: Record<StatusState, string> = {
  running: "Running",
  succeeded: "Succeeded",
  success: "Succeeded",
  failed: "Failed",
  error: "Failed",
  stopped: "Stopped",
  cancelled: "Cancelled",
  timed_out: "Timed out",
  out_of_budget: "Out of budget",
};

export function StatusIcon({ status, size = 16 }: { status: StatusState; size?: number }) {
  return (
    <span className="inline-flex shrink-0 items-center" role="img" aria-label={LABELS[status]} title={LABELS[status]} data-state={status}>
      {status === "running" ? (
        <SpinnerIcon size={size} className="text-sky-600 dark:text-sky-400" />
      ) : status === "success" || status === "succeeded" ? (
        <CheckIcon size={size} className="text-emerald-600 dark:text-emerald-400" />
      ) : status === "stopped" || status === "cancelled" ? (
        <StopCircleIcon size={size} className="text-zinc-500 dark:text-zinc-400" />
      ) : status === "timed_out" ? (
        <ClockIcon size={size} className="text-orange-600 dark:text-orange-400" />
      ) : status === "out_of_budget" ? (
        <GaugeIcon size={size} className="text-amber-600 dark:text-amber-400" />
      ) : (
        <XIcon size={size} className="text-red-600 dark:text-red-400" />
      )}
    </span>
  );
}

type SvgProps = { size: number; className?: string };

function Svg({ size, className, children }: SvgProps & { children: React.ReactNode }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className}
    >
      {children}
    </svg>
  );
}

/** A square in a circle: stopped on purpose, not broken. */
export function StopCircleIcon(props: SvgProps) {
  return (
    <Svg {...props}>
      <circle cx="12" cy="12" r="10" />
      <rect x="9" y="9" width="6" height="6" rx="1" fill="currentColor" stroke="none" />
    </Svg>
  );
}

export function ClockIcon(props: SvgProps) {
  return (
    <Svg {...props}>
      <circle cx="12" cy="12" r="10" />
      <path d="M12 6v6l4 2" />
    </Svg>
  );
}

/** A speech bubble with an arrow: a message that redirects a run. */
export function SteerIcon(props: SvgProps) {
  return (
    <Svg {...props}>
      <path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" />
      <path d="m10 8 3 2-3 2" />
    </Svg>
  );
}

/** A gauge at its limit: a budget reached, not a fault. */
export function GaugeIcon(props: SvgProps) {
  return (
    <Svg {...props}>
      <path d="M4 17a8 8 0 1 1 16 0" />
      <path d="M12 17l5-5" />
      <circle cx="12" cy="17" r="1" />
    </Svg>
  );
}
