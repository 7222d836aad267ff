"use client";

import { useEffect, useState } from "react";
import type { ModelCatalog } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";

/**
 * The models a person may pick (every configured endpoint's). One request serves every
 * view of the page (header, composer), asked again after each reconnect.
 */
let latest: ModelCatalog | null = null;
const listeners = new Set<(catalog: ModelCatalog) => void>();
let loading: Promise<void> | null = null;
let bound = false;

function load(): Promise<void> {
  loading ??= request(getSocket(), "model:list", {})
    .then((ack) => {
      if (!ack.ok) return;
      latest = ack.data;
      for (const listener of listeners) listener(ack.data);
    })
    .finally(() => (loading = null));
  return loading;
}

export function useModels(): ModelCatalog | null {
  const [catalog, setCatalog] = useState<ModelCatalog | null>(latest);
  useEffect(() => {
    const socket = getSocket();
    listeners.add(setCatalog);
    if (!bound) {
      bound = true;
      socket.on("connect", () => void load());
    }
    if (socket.connected && !latest) void load();
    return () => {
      listeners.delete(setCatalog);
    };
  }, []);
  return catalog;
}
