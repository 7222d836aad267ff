import type { RunStatus } from "@/lib/contracts";
import { CheckIcon, SpinnerIcon, XIcon } from "@/components/ui/icons";

const LABELS: Record<RunStatus, string> = { running: "Running", success: "Succeeded", error: "Failed" };

export function StatusIcon({ status, size = 16 }: { status: RunStatus; size?: number }) {
  return (
    <span className="inline-flex shrink-0 items-center" role="img" aria-label={LABELS[status]} title={LABELS[status]}>
      {status === "running" ? (
        <SpinnerIcon size={size} className="text-sky-600 dark:text-sky-400" />
      ) : status === "success" ? (
        <CheckIcon size={size} className="text-emerald-600 dark:text-emerald-400" />
      ) : (
        <XIcon size={size} className="text-red-600 dark:text-red-400" />
      )}
    </span>
  );
}
