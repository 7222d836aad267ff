"use client";

import { useCallback, useEffect, useState } from "react";
import type { AuthState } from "@/lib/contracts/account";
import { fetchAuthState } from "./account-api";

/** One request per page load, shared by the header, the claim banner and the pages. */
let shared: Promise<AuthState> | null = null;

export interface AuthStateApi {
  /** Null until the server answered. */
  state: AuthState | null;
  /** Asks again (after a claim, a profile change). */
  refresh: () => Promise<void>;
}

export function useAuthState(): AuthStateApi {
  const [state, setState] = useState<AuthState | null>(null);
  useEffect(() => {
    let alive = true;
    shared ??= fetchAuthState();
    void shared.then((s) => alive && setState(s));
    return () => {
      alive = false;
    };
  }, []);
  const refresh = useCallback(async () => {
    shared = fetchAuthState();
    setState(await shared);
  }, []);
  return { state, refresh };
}
