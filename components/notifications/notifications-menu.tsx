"use client";

import { useEffect, useState } from "react";
import { NOTIFY_LEVELS, type NotifyLevel } from "@/lib/contracts";
import { PopoverMenu } from "@/components/ui/popover-menu";
import { BellIcon } from "@/components/ui/icons";
import { changeNotifyLevel, useNotifyLevel } from "./notify-level";
import { subscribeToPush } from "./push-subscription";
import { notificationWorker, serviceWorkerSupported } from "./service-worker";

const LEVEL_LABELS: Record<NotifyLevel, { label: string; hint: string }> = {
  all: { label: "Everything", hint: "Finished and failed turns, approvals and questions" },
  approvals: { label: "Only what waits for me", hint: "Approvals and questions" },
  off: { label: "Off", hint: "No notifications" },
};

type Permission = NotificationPermission | "unsupported";

const PERMISSION_TEXT: Record<Permission, string> = {
  granted: "Browser notifications are on.",
  default: "Browser notifications are not on yet.",
  denied: "This browser blocks notifications from Delegate; allow them in the site's settings.",
  unsupported: "This browser cannot show notifications.",
};

function permissionNow(): Permission {
  return serviceWorkerSupported() ? Notification.permission : "unsupported";
}

/**
 * The header's notification settings: which notices reach this person (stored on the
 * server, for every browser they use), and turning on this browser's notifications: the
 * permission, then a push subscription where the browser has a push service.
 */
export function NotificationsMenu() {
  const level = useNotifyLevel();
  const [permission, setPermission] = useState<Permission>("default");
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setPermission(permissionNow()), []);

  const choose = async (next: NotifyLevel) => {
    setNote(await changeNotifyLevel(next));
  };

  const turnOn = async () => {
    setBusy(true);
    setNote(null);
    try {
      const answer = await Notification.requestPermission();
      setPermission(answer);
      if (answer !== "granted") return;
      const registration = await notificationWorker();
      if (!registration) return setNote("The service worker could not start, so notifications cannot be shown.");
      const pushed = await subscribeToPush(registration);
      setNote(pushed.ok ? "You will be notified even when every Delegate tab is closed." : pushed.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <PopoverMenu
      kind="dialog"
      button={<BellIcon />}
      buttonLabel="Notifications"
      title="Notifications"
      buttonTestId="notifications-button"
      buttonClassName="rounded-md p-2 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      label="Notifications"
      panelTestId="notifications-panel"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(20rem,calc(100vw-1rem))] max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto space-y-3 rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      <fieldset className="space-y-1">
        <legend className="mb-1 font-medium text-zinc-900 dark:text-zinc-100">Notify me of</legend>
        {NOTIFY_LEVELS.map((value) => (
          <label
            key={value}
            className="flex cursor-pointer items-start gap-2 rounded-md px-1 py-1 hover:bg-zinc-100 dark:hover:bg-zinc-800"
          >
            <input
              type="radio"
              name="notify-level"
              value={value}
              checked={level === value}
              disabled={level === null}
              onChange={() => void choose(value)}
              data-testid={`notify-level-${value}`}
              className="mt-1"
            />
            <span>
              <span className="block text-zinc-800 dark:text-zinc-100">{LEVEL_LABELS[value].label}</span>
              <span className="block text-xs text-zinc-600 dark:text-zinc-400">{LEVEL_LABELS[value].hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="space-y-2 border-t border-zinc-200 pt-3 dark:border-zinc-800">
        <p data-testid="notify-permission" data-state={permission} className="text-xs text-zinc-700 dark:text-zinc-300">
          {PERMISSION_TEXT[permission]}
        </p>
        {permission !== "unsupported" && permission !== "denied" ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => void turnOn()}
            data-testid="notify-turn-on"
            className="rounded-md bg-sky-700 px-3 py-1.5 text-xs font-medium text-white hover:bg-sky-800 disabled:opacity-60"
          >
            Turn on browser notifications
          </button>
        ) : null}
        {note ? (
          <p role="status" data-testid="notify-note" className="text-xs text-zinc-600 dark:text-zinc-400">
            {note}
          </p>
        ) : null}
      </div>
    </PopoverMenu>
  );
}
