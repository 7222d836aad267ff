"use client";

import { useEffect, useState } from "react";
import type { AppInfo } from "@/lib/contracts";
import { getSocket, request } from "./socket";

/** Which model answers and whether it is the offline demo; asked again after each reconnect. */
export function useAppInfo(): AppInfo | null {
  const [info, setInfo] = useState<AppInfo | null>(null);
  useEffect(() => {
    const socket = getSocket();
    let alive = true;
    const load = async () => {
      const ack = await request(socket, "app:info", {});
      if (alive && ack.ok) setInfo(ack.data);
    };
    if (socket.connected) void load();
    socket.on("connect", load);
    return () => {
      alive = false;
      socket.off("connect", load);
    };
  }, []);
  return info;
}
